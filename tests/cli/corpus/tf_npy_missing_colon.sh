$TL inspect bad/tf_npy_missing_colon.npy; echo exit $?
