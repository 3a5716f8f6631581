# dump FILE:NAME INDEX-PREFIX prints a slice (SPEC 19: dump x:w 0,0 is
# w[0,0,:,:]), and an index of every axis one value (SPEC 23: dump
# FILE:norm.weight 5 of a 1-D tensor); --stats prints count, min, max,
# mean, NaN and inf counts.
$TL dump examples/model.safetensors:conv.weight 1; echo exit $?
$TL dump examples/model.safetensors:conv.weight 1,0,1; echo exit $?
$TL dump --json examples/nchw.npy 0,1
$TL dump examples/nchw.npy 0,9; echo exit $?
$TL dump examples/nchw.npy 0,0,0,1; echo exit $?
$TL dump --json examples/model.safetensors:conv.bias 1; echo exit $?
$TL dump examples/model.safetensors:conv.bias 0,0; echo exit $?
$TL dump --stats examples/model.safetensors:conv.weight; echo exit $?
$TL dump --stats --json examples/nchw.npy
$TL dump --stats examples/nchw.npy 0,1
printf '\000\000\300\177\000\000\200\177\000\000\200\077' > f.bin
$TL dump --stats --type float32 --sizes 3 f.bin
$TL dump --stats --json --type float32 --sizes 1 f.bin
$TL dump --stats --physical examples/nchw.npy; echo exit $?
