$TL inspect bad/tf_npy_data_short.npy; echo exit $?
