$TL dump examples/nchw.npy --axes NHWC && $TL inspect examples/nchw.npy --axes 0,2,3,1 | grep -E "^(sizes|strides|layout)"
