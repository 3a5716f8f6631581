$TL inspect bad/tf_npy_shape_bytes_overflow.npy; echo exit $?
