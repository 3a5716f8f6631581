$TL inspect bad/tf_npy_dtype_datetime.npy; echo exit $?
