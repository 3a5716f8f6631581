$TL inspect bad/tf_npy_dtype_unicode.npy; echo exit $?
