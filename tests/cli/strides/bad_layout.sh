$TL strides --sizes 1,3,4,5 --layout NHWX
