$TL inspect bad/tf_npy_shape_unclosed.npy; echo exit $?
