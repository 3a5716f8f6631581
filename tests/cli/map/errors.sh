# A map's mistakes: no name, a name twice, a key beside "tensors", an
# entry's own error named by its place, several tensors and none named,
# a name it does not hold, overlapping buffers.
$TL size examples/readback_map.json; echo "exit $?"
$TL size examples/readback_map.json:weights; echo "exit $?"
$TL size '{"tensors": [{"dataType": "UINT8", "sizes": [2]}]}'; echo "exit $?"
$TL size '{"tensors": [{"name": "a", "dataType": "UINT8", "sizes": [2]}, {"name": "a", "dataType": "UINT8", "sizes": [2]}]}'; echo "exit $?"
$TL size '{"tensors": [{"name": "a", "dataType": "UINT8", "sizes": [2]}], "dataType": "UINT8"}'; echo "exit $?"
$TL size '{"tensors": [{"name": "a", "dataType": "UINT8", "sizes": [0]}]}'; echo "exit $?"
$TL size '{"tensors": []}'; echo "exit $?"
$TL size '{"tensors": [{"name": "a", "dataType": "UINT8", "sizes": [2]}, {"name": "b", "dataType": "UINT8", "sizes": [2]}]}'; echo "exit $?"
$TL size '{"tensors": [{"name": "only", "dataType": "UINT8", "sizes": [3]}]}'; echo "exit $?"
$TL size '{"tensors": [{"name": "w", "Type": "DML_TENSOR_TYPE_BUFFER", "Desc": {"DataType": "FLOAT16", "Sizes": [5]}}]}'; echo "exit $?"
printf '{"tensors": [{"name": "a", "dataType": "UINT8", "sizes": [8]}, {"name": "b", "dataType": "UINT8", "sizes": [8], "byteOffset": 4}]}' > o.json
head -c 12 /dev/zero > o.bin
$TL list o.json o.bin; echo "exit $?"
$TL dump o.json:a o.bin; echo "exit $?"
