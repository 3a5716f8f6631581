# offset --byte N of a whole buffer map (issue 46: "holds 3 tensors: name
# one"): the tensor and the indices that own the byte, each line after the
# tensor's name; its padding; the gap between buffers; past them all.
for b in 0 1800 1900 2050 2300 2400; do
    printf '%s: ' $b; $TL offset examples/readback_map.json --byte $b; echo "exit $?"
done
$TL offset examples/readback_map.json --byte 1800 --json | grep -E '"(name|in|padding)"'
$TL offset examples/readback_map.json:bias --byte 1800
$TL offset examples/readback_map.json --byte x; echo "exit $?"
