$TL strides --sizes 2,3,4,5,6,7 --layout 5,4,3,2,1,0
