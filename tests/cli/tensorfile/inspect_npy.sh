$TL inspect examples/nchw.npy; echo exit $?
