# Scaled weights: list pairs them; --dequantize decodes each into its
# weight's name (FLOAT32, or --to-type), the scales left out; a file with
# none refuses --dequantize; the 8-bit types dumped and converted.
$TL list examples/scaled.safetensors; echo exit $?
$TL convert examples/scaled.safetensors --dequantize -o d.safetensors; echo exit $?
$TL list d.safetensors; echo exit $?
$TL dump d.safetensors:attn.q.weight; echo exit $?
$TL dump d.safetensors:mlp.down | cut -c1-80; echo exit $?
$TL convert examples/scaled.safetensors --to-type bfloat16 -o b.safetensors; echo exit $?
$TL convert examples/model.safetensors --dequantize -o x.safetensors; echo exit $?
$TL dump examples/scaled.safetensors:attn.q.weight; echo exit $?
$TL convert --type e5m2 --sizes 4 examples/nchw.bin --to-type FLOAT32 -o e.bin; echo exit $?
$TL dump --type FLOAT32 --sizes 4 e.bin; echo exit $?
