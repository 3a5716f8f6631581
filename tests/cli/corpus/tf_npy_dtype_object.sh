$TL inspect bad/tf_npy_dtype_object.npy; echo exit $?
