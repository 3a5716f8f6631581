$TL inspect bad/tf_npy_header_longer_than_file.npy; echo exit $?
