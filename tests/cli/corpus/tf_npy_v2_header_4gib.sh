$TL inspect bad/tf_npy_v2_header_4gib.npy; echo exit $?
