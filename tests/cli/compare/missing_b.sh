$TL compare examples/nchw.npy; echo exit $?; $TL compare examples/nchw.json examples/nchw.bin examples/nhwc.json; echo exit $?
