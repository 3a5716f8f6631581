# A format change alone is a conversion (SPEC 19): no rule, every tensor as
# it is, into a file of another format: .npz to safetensors and back, one
# .npy to safetensors, a buffer map and its data to .npz, a description
# and raw data to .npy.  Into the input's own format, or raw, a rule is
# still needed.
$TL convert examples/weights.npz -o w.safetensors; echo exit $?
$TL list w.safetensors
$TL convert w.safetensors -o w.npz; echo exit $?
$TL compare w.npz:conv.weight examples/weights.npz:conv.weight; echo exit $?
$TL convert examples/nchw.npy -o n.safetensors; echo exit $?
$TL list n.safetensors | head -n 2
$TL convert examples/readback_map.json examples/readback_map.bin -o m.npz; echo exit $?
$TL list m.npz | head -n 3
$TL convert examples/hw.json examples/hw.bin -o hw.npy; echo exit $?
$TL dump hw.npy
$TL convert examples/weights.npz -o same.npz; echo exit $?
$TL convert examples/hw.json examples/hw.bin -o hw.bin; echo exit $?
ls same.npz hw.bin 2>&1
