$TL inspect bad/tf_npy_dtype_descr_number.npy; echo exit $?
