# dump INDEX:NAME PREFIX slices a sharded model's tensor as it does a
# safetensors file's (it was taken for a DESC DATA pair: "unexpected
# argument '0,0'"); --stats too.
I=examples/sharded/model.safetensors.index.json
$TL dump $I:conv1.weight 0,0
$TL dump examples/sharded/model-00001-of-00002.safetensors:conv1.weight 0,0
$TL dump --stats $I:fc.weight 3
$TL dump $I:conv1.weight 8; echo exit $?
