$TL inspect bad/tf_npy_version_4_0.npy; echo exit $?
