$TL inspect bad/tf_npy_dtype_big_endian_i8.npy; echo exit $?
