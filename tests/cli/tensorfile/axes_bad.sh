$TL inspect examples/nchw.npy --axes NHW; echo exit $?; $TL dump examples/fortran.npy --axes HH; echo exit $?
