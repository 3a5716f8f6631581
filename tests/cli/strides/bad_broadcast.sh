$TL strides --sizes 3,4 --layout HW --broadcast C
