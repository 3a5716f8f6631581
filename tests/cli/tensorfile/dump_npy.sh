$TL dump examples/nchw.npy
