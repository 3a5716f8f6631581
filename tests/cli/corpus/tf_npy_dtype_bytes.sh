$TL inspect bad/tf_npy_dtype_bytes.npy; echo exit $?
