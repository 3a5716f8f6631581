$TL dump bad/tf_npy_name_given.npy:x; echo exit $?
