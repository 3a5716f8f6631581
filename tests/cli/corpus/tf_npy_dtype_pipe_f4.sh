$TL inspect bad/tf_npy_dtype_pipe_f4.npy; echo exit $?
