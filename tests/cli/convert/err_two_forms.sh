$TL convert examples/hw.json examples/hw.bin -o out.bin --to WH --to-strides 1,2
