# Tensors the tool does not decode (SPEC 23): a quantized, a sparse and a
# transposed complex tensor are listed with their types and shapes and
# left out of a conversion with a note naming them; a packed complex
# tensor is carried as C64; read one by name and the error names its type
$TL list examples/undecoded.pt; echo exit $?
$TL list --json examples/undecoded.pt | grep -o '"values":.*\]'
$TL convert examples/undecoded.pt -o out.safetensors; echo exit $?
$TL list out.safetensors | head -n 3
$TL dump examples/undecoded.pt:quantized; echo exit $?
$TL compare examples/undecoded.pt out.safetensors | tail -n 1
