# A tensor name not found gets the nearest name a typo away (SPEC 23: a
# letter swapped, dropped, added or replaced; two in a long name), in a
# safetensors file, a sharded model and a checkpoint; a name far from all
# gets none.
$TL dump examples/model.safetensors:conv.weigth; echo exit $?
$TL dump examples/model.safetensors:conv.bia; echo exit $?
$TL dump examples/sharded/model.safetensors.index.json:fc.wieght; echo exit $?
$TL convert examples/checkpoint.pt:model.lm_haed.weight -o x.npy; echo exit $?
$TL dump examples/model.safetensors:nope; echo exit $?
$TL dump examples/model.safetensors:conv; echo exit $?
