$TL inspect bad/tf_npy_escape.npy; echo exit $?
