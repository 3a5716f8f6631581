$TL strides
