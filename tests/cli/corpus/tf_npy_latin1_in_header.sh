$TL inspect bad/tf_npy_latin1_in_header.npy; echo exit $?
