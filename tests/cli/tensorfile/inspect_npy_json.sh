$TL inspect --json examples/fortran.npy
