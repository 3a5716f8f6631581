$TL inspect bad/tf_npy_shape_2_64.npy; echo exit $?
