$TL strides --sizes 1,0,3 --layout DHW
