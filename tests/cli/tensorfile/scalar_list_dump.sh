# A 0-d array is listed as 0-d (its file's shape, [] in --json), and dump
# --json gives its value as numpy's tolist() does: no list around it.
$TL list examples/mixed.safetensors | grep -E '^(name|step) '
$TL list --json examples/mixed.safetensors | tr -d '\t\n' | grep -o '"name":"step"[^}]*}'
$TL dump examples/mixed.safetensors:step
$TL dump --json examples/mixed.safetensors:step
$TL convert examples/mixed.safetensors:step -o s.npy --to-type INT32
$TL list s.npy | head -n 2
$TL dump --json s.npy
# a 1-element 1-d array stays one
$TL convert --type INT32 --sizes 1 examples/hw.bin --to-type INT32 -o one.npy 2>/dev/null
$TL dump --json one.npy
