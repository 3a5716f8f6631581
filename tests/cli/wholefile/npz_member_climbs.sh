# A tensor whose name would be an absolute or climbing .npz member (a
# zip-slip when unpacked) is refused, and nothing is written; safetensors,
# whose names are no paths, takes it.
printf '{"tensors":[{"name":"../../x","dataType":"FLOAT32","sizes":[2]},{"name":"/abs/y","dataType":"FLOAT32","sizes":[2],"fileOffset":8}]}' > map.json
head -c 16 /dev/zero > map.bin
$TL convert map.json map.bin -o out.npz; echo exit $?
$TL convert map.json map.bin -o out.safetensors; echo exit $?
ls
