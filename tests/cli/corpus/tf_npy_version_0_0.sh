$TL inspect bad/tf_npy_version_0_0.npy; echo exit $?
