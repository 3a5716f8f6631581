$TL inspect bad/tf_npy_shape_leading_zero.npy; echo exit $?
