$TL strides --sizes 1,1,3,5 --layout NCHW
