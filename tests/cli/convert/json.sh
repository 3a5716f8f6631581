$TL convert --json examples/nchw.json examples/nchw.bin -o out.bin --to 0,2,3,1
