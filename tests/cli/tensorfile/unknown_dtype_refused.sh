# A safetensors dtype the format does not have is refused by every command,
# list included, as the reference reader refuses it (issue 45: list exited
# 0); the format's own dtypes the tool does not decode are still listed.
$TL list bad/tf_st_dtype_unknown.safetensors; echo exit $?
$TL convert bad/tf_st_dtype_unknown.safetensors --to-type F16 -o out.safetensors; echo exit $?
/usr/bin/python3 -c '
import json, struct, sys
h = json.dumps({"t": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}}).encode()
h += b" " * (-len(h) % 8)
sys.stdout.buffer.write(struct.pack("<Q", len(h)) + h + bytes([0x38, 0xb8]))' > f8.safetensors
$TL list f8.safetensors | head -n 2; echo exit $?
ls out.safetensors 2>&1
