$TL inspect bad/tf_npy_dtype_no_kind.npy; echo exit $?
