$TL inspect bad/tf_npy_dtype_big_endian_f4.npy; echo exit $?
