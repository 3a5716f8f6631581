# GGUF has no bool, unsigned or 8-bit float type: such a tensor into a GGUF
# OUT is refused by name (one tensor or a whole file), and nothing is
# written (an FP8 tensor once came out typed F32, its bytes one a value).
$TL convert examples/mixed.safetensors:attn.mask -o mask.gguf; echo exit $?
$TL convert examples/mixed.safetensors:proj.weight_fp8 -o fp8.gguf; echo exit $?
$TL convert examples/scaled.safetensors:attn.q.weight -o q.gguf; echo exit $?
$TL convert examples/mixed.safetensors -o all.gguf; echo exit $?
ls -A
