# Types on the command line in numpy's and safetensors' spellings too, any
# case; 'float' is ambiguous and says so; JSON keeps DirectML's names.
for t in F16 fp16 half float16 Float16 BF16 bfloat16 f4 '<f4' float32 single double int8 I8 u1 uint64; do
    printf '%s: ' "$t"; $TL convert examples/nchw.npy --to-type "$t" --format raw -o out.bin --json | grep '"dataType"'
done
$TL strides --sizes 2,3 --layout HW --type f2 --json | grep dataType
$TL convert examples/nchw.npy --to-type float -o out.npy; echo exit $?
$TL convert examples/nchw.npy --to-type floatx -o out.npy; echo exit $?
$TL convert examples/model.safetensors --to-type half -o half.safetensors && $TL list half.safetensors | head -2
$TL inspect '{"dataType": "F16", "sizes": [2]}'; echo exit $?
