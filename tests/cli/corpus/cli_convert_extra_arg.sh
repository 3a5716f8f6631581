$TL convert examples/hw.json examples/hw.bin extra -o out.bin --to WH
