$TL inspect bad/tf_npy_dtype_timedelta.npy; echo exit $?
