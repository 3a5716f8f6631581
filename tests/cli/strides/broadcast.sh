$TL strides --sizes 8,64,112,112 --layout NHWC --broadcast NHW
