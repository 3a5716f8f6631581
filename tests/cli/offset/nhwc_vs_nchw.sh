$TL offset examples/nchw.json 0,0,1,2; $TL offset examples/nhwc.json 0,0,1,2
