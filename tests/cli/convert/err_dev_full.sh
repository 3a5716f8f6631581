$TL convert examples/hw.json examples/hw.bin -o /dev/full --to WH
