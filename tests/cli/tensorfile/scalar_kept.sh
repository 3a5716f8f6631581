# A 0-d array (np.save of a scalar, a safetensors shape []) converted as one
# tensor keeps its shape: () in .npy, [] in safetensors.
$TL convert examples/mixed.safetensors:step --to-type FLOAT32 -o s.npy && head -c 128 s.npy | tail -c +11 | tr -d ' '; echo
$TL convert s.npy --to-type FLOAT16 -o s.safetensors && head -c 64 s.safetensors | tail -c +9 | tr -d ' '; echo
$TL dump s.safetensors
