# A buffer map lists like a safetensors file: its gaps are alignment, not
# problems (exit 0); with DATA, the bytes after the last buffer too.
$TL list examples/readback_map.json examples/readback_map.bin; echo "exit $?"
head -c 2400 /dev/zero > long.bin
$TL list --json examples/readback_map.json long.bin; echo "exit $?"
