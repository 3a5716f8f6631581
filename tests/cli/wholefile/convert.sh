# Every tensor of a safetensors file in one command: --to applies to the
# tensors of its rank, --to-type to the floating ones, --select/--exclude
# by name; the rest are copied as they are; metadata kept.
cp examples/model.safetensors m.safetensors
$TL convert m.safetensors --to OHWI -o mlx.safetensors --json
$TL list mlx.safetensors
$TL dump mlx.safetensors:conv.weight --axes OHWI
$TL convert m.safetensors --to-type FLOAT16 --exclude 'conv.*' -o h.safetensors -q && $TL list h.safetensors
$TL convert m.safetensors --to-type float32 --select 'embed/*' -o m.safetensors && $TL list m.safetensors | head -n 4
