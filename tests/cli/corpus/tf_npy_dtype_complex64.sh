$TL inspect bad/tf_npy_dtype_complex64.npy; echo exit $?
