$TL inspect bad/tf_npy_missing_shape.npy; echo exit $?
