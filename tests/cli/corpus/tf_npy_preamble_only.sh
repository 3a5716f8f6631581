$TL inspect bad/tf_npy_preamble_only.npy; echo exit $?
