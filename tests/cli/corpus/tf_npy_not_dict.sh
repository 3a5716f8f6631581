$TL inspect bad/tf_npy_not_dict.npy; echo exit $?
