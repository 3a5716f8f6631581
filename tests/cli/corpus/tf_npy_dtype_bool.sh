$TL inspect bad/tf_npy_dtype_bool.npy; echo exit $?
