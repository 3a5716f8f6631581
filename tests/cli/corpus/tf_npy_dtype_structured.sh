$TL inspect bad/tf_npy_dtype_structured.npy; echo exit $?
