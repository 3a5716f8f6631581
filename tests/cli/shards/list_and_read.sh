# A sharded model's index is a tensor file whose tensors are its shards'.
I=examples/sharded/model.safetensors.index.json
$TL list $I; echo exit $?
$TL list --json $I | head -12; echo exit $?
$TL dump $I:conv1.bias; echo exit $?
$TL inspect $I:fc.weight | head -3; echo exit $?
$TL dump $I; echo exit $?
$TL dump $I:nope; echo exit $?
