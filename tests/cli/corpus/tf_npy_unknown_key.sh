$TL inspect bad/tf_npy_unknown_key.npy; echo exit $?
