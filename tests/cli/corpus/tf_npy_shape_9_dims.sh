$TL inspect bad/tf_npy_shape_9_dims.npy; echo exit $?
