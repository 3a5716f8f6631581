# Truncations of a safetensors file through its length, its header and its
# data (the unit tests cut at every byte, under the sanitizers; this samples)
for n in 0 1 7 8 9 10 50 100 200 270 278 279 280 281 300 311 312 313 315 316 320 327; do
    head -c $n examples/model.safetensors > t.safetensors; printf "%s: " $n
    $TL dump t.safetensors:conv.bias 2>&1 >/dev/null | sed "s/^tensorlayout: //"
done
