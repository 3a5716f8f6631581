$TL inspect bad/tf_npy_data_short_fortran.npy; echo exit $?
