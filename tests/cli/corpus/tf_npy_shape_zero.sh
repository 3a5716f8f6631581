$TL inspect bad/tf_npy_shape_zero.npy; echo exit $?
