$TL inspect bad/tf_npy_shape_zero_middle.npy; echo exit $?
