$TL inspect bad/tf_npy_version_1_1.npy; echo exit $?
