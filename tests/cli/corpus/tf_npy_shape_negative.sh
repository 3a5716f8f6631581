$TL inspect bad/tf_npy_shape_negative.npy; echo exit $?
