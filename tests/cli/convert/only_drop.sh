# --only and --drop choose the tensors written (SPEC 23): a training
# checkpoint's weights extracted; biases left out of them; a sharded model
# whose index then names only what is written; a glob matching nothing and
# leaving nothing to write are errors; one tensor takes neither.
$TL convert examples/checkpoint.pt --only 'model.*' -o weights.safetensors; echo exit $?
$TL list weights.safetensors; echo exit $?
$TL convert examples/checkpoint.pt --only 'model.*' --drop '*.bias' --to-type FLOAT32 -o w.npz; echo exit $?
$TL list w.npz | cut -c1-40; echo exit $?
$TL convert examples/sharded/model.safetensors.index.json --drop 'fc.*' -o out/; echo exit $?
$TL list out/model.safetensors.index.json; echo exit $?
$TL convert examples/checkpoint.pt --only 'nope*' -o x.safetensors; echo exit $?
$TL convert examples/checkpoint.pt --drop '*' -o x.safetensors; echo exit $?
$TL convert examples/checkpoint.pt:model.lm_head.weight --drop x --to WH -o x.npy; echo exit $?
ls
