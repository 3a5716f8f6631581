$TL strides --json --type float16 --sizes 1,3,2,2 --layout NHWC
