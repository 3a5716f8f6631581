# Whole-file compare (SPEC 19): two files of many tensors (or indexes) named
# whole compare every tensor of the same name in one process; types the
# tool does not decode byte for byte; names in one file only reported;
# exit 1 when anything differs or is missing; --json a record per tensor.
# Two files of one tensor each still compare as tensors.
$TL convert examples/model.safetensors --to-type FLOAT32 -o f32.safetensors > /dev/null
$TL compare examples/model.safetensors f32.safetensors; echo exit $?
$TL convert examples/model.safetensors --to-type FLOAT16 -o f16.safetensors > /dev/null
$TL compare examples/model.safetensors f16.safetensors; echo exit $?
$TL compare examples/model.safetensors f16.safetensors --atol 0.01; echo exit $?
$TL compare examples/model.safetensors examples/mixed.safetensors; echo exit $?
$TL compare examples/mixed.safetensors examples/mixed.safetensors; echo exit $?
$TL compare examples/sharded/model.safetensors.index.json examples/sharded/model.safetensors.index.json; echo exit $?
$TL compare --json examples/weights.npz examples/weights.npz | grep -E '"(equal|name|result|mismatches)"'
$TL compare examples/model.safetensors:conv.bias f32.safetensors:conv.bias; echo exit $?
