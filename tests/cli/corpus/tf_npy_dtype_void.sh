$TL inspect bad/tf_npy_dtype_void.npy; echo exit $?
