$TL strides --layout NCHW --sizes
