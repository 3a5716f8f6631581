$TL inspect bad/tf_npy_shape_list.npy; echo exit $?
