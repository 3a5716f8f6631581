$TL compare examples/nchw.npy; echo exit $?; $TL compare examples/nchw.json examples/nchw.bin examples/nhwc.json; echo exit $?
# a file of several tensors alone is the same usage error (SPEC 23), not
# "name one of its tensors"
$TL compare examples/model.safetensors; echo exit $?
