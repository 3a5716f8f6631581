# Tensors of types the tool does not decode, and with no elements, do not
# make a file unreadable: list shows them, every other tensor works, naming
# one says why in one line, and a whole-file convert carries them through.
$TL list examples/mixed.safetensors; echo "exit $?"
$TL dump examples/mixed.safetensors:step
$TL dump examples/mixed.safetensors:attn.mask; echo "exit $?"
$TL inspect examples/mixed.safetensors:empty.buffer; echo "exit $?"
$TL convert examples/mixed.safetensors --to NHWC --to-type BFLOAT16 -o m.safetensors --json | grep -E '"(name|toDataType|changed)"'
$TL list m.safetensors
od -An -tx1 -j 0 -N 8 m.safetensors > /dev/null
cmp -s m.safetensors examples/mixed.safetensors || echo differs as it should
