$TL inspect bad/tf_npy_unclosed_string.npy; echo exit $?
