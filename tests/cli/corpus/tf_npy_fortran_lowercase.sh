$TL inspect bad/tf_npy_fortran_lowercase.npy; echo exit $?
