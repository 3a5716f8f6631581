$TL inspect bad/tf_npy_dtype_complex128.npy; echo exit $?
