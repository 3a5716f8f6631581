$TL compare examples/nchw.npy nope.npy; echo exit $?
