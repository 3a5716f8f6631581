# A buffer map's tensors, converted all at once into a safetensors file.
$TL convert examples/readback_map.json examples/readback_map.bin -o rb.safetensors --to NCHW --to-type FLOAT32 --json | grep -E '"(name|toDataType|changed)"'
$TL list rb.safetensors
$TL compare examples/readback_map.json:input examples/readback_map.bin rb.safetensors:input
$TL convert examples/readback_map.json examples/readback_map.bin -o rb2.safetensors --select bias --to NHWC; echo "exit $?"
