$TL inspect bad/tf_npy_shape_not_tuple.npy; echo exit $?
