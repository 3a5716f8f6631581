$TL inspect bad/tf_npy_empty_header.npy; echo exit $?
