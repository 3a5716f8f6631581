$TL inspect bad/tf_npy_dtype_empty_descr.npy; echo exit $?
