$TL inspect bad/tf_npy_duplicate_key.npy; echo exit $?
