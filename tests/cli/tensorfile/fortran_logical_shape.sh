# A Fortran-order .npy (np.save(W.T) writes one) keeps the shape numpy
# sees through a type change (SPEC 19): into .npy Fortran-order with the
# same shape (fortran_order True in the header), into safetensors (no
# order flag) in C order with the same shape; --to chooses a memory order,
# whose sizes are then the written shape.
$TL dump examples/fortran.npy
$TL convert examples/fortran.npy --to-type FLOAT64 -o f.npy; echo exit $?
head -c 128 f.npy | tail -c 118 | tr -s ' '; echo
$TL dump f.npy
$TL convert examples/fortran.npy --to-type FLOAT64 -o f.safetensors; echo exit $?
$TL list f.safetensors | head -n 2
$TL compare f.safetensors examples/fortran.npy; echo exit $?
$TL convert examples/fortran.npy --to 1,0 -o t.npy; echo exit $?
head -c 128 t.npy | tail -c 118 | tr -s ' '; echo
