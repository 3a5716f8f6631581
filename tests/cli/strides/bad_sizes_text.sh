$TL strides --sizes 1,three --layout HW
