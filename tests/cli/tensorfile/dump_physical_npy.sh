$TL dump --physical examples/fortran.npy
