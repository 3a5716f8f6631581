$TL strides --json --sizes 2,3,4 --layout WHD | $TL inspect -
