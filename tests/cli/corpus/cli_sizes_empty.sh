$TL strides --sizes "" --layout W
