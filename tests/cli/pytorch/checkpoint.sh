# A torch.save checkpoint: its tensors as views of storages, ties, values
# that are no tensor; a transposed view dumped and inspected; converted into
# safetensors (the values not written, the views apart) and .npz; a name it
# lacks.
$TL list examples/checkpoint.pt; echo exit $?
$TL dump examples/checkpoint.pt:model.decoder.weight; echo exit $?
$TL inspect examples/checkpoint.pt:model.decoder.weight | head -4; echo exit $?
$TL convert examples/checkpoint.pt -o c.safetensors; echo exit $?
$TL list c.safetensors; echo exit $?
$TL compare examples/checkpoint.pt:model.decoder.weight c.safetensors:model.decoder.weight; echo exit $?
$TL convert examples/checkpoint.pt -o c.npz --to-type FLOAT32; echo exit $?
$TL dump examples/checkpoint.pt:epoch; echo exit $?
$TL dump examples/checkpoint.pt:model.nope; echo exit $?
$TL compare examples/checkpoint.pt c.safetensors; echo exit $?
