$TL inspect bad/tf_npy_dtype_float128.npy; echo exit $?
