$TL inspect bad/tf_npy_missing_descr.npy; echo exit $?
