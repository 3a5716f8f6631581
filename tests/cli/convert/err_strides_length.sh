$TL convert examples/nchw.json examples/nchw.bin -o out.bin --to-strides 1,2,3
