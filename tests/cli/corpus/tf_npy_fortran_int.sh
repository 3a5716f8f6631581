$TL inspect bad/tf_npy_fortran_int.npy; echo exit $?
