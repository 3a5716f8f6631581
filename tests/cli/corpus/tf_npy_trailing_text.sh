$TL inspect bad/tf_npy_trailing_text.npy; echo exit $?
