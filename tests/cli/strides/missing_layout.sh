$TL strides --sizes 1,3
