$TL dump examples/nchw.npy examples/nchw.bin; echo exit $?; $TL convert examples/nchw.npy examples/nchw.bin --to NHWC -o x.bin; echo exit $?
