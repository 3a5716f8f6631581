$TL convert examples/hw.json examples/hw.bin --to WH -o
