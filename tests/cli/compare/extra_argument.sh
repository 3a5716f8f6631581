$TL compare examples/nchw.npy examples/nchw.npy examples/nchw.bin; echo exit $?
