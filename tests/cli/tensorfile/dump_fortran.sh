$TL dump examples/fortran.npy && $TL inspect examples/fortran.npy | grep -E "^(strides|layout)"
