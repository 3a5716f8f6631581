$TL list examples/fortran.npy && $TL list --json examples/nchw.npy
