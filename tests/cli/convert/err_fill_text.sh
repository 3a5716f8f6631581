$TL convert examples/hw.json examples/hw.bin -o out.bin --to-strides 4,1 --fill lots
