# numpy has no bfloat16 and no 8-bit float: such a tensor into an .npz OUT
# is refused by name, saying what to do, and nothing is written.
$TL convert examples/model.safetensors -o bf16.npz; echo exit $?
$TL convert examples/scaled.safetensors -o fp8.npz; echo exit $?
$TL convert examples/model.safetensors --to-type float32 -o f32.npz; echo exit $?
ls -A
