$TL offset examples/nchw.npy 0,0,0,0 0,1,1,2
