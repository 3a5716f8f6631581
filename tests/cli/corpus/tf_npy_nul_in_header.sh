$TL inspect bad/tf_npy_nul_in_header.npy; echo exit $?
