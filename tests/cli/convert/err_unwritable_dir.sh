$TL convert examples/hw.json examples/hw.bin -o no-such-dir/out.bin --to WH
