# A rule that changes nothing, a rule for one tensor, an integer --to-type,
# --select without a whole file: one line each, nothing written.
M=examples/model.safetensors
$TL convert $M --to NHWC --select 'decoder.*' -o o.safetensors; echo "exit $?"
$TL convert $M --to NHWC --exclude 'x' -o o.safetensors; echo "exit $?"
$TL convert $M --to DHW -o o.safetensors; echo "exit $?"
$TL convert $M --to-type BFLOAT16 --select 'embed/*' -o o.safetensors; echo "exit $?"
$TL convert $M --to-type INT8 -o o.safetensors; echo "exit $?"
$TL convert $M --to-strides 1,2,3,4 -o o.safetensors; echo "exit $?"
$TL convert $M --to NHWC --name w -o o.safetensors; echo "exit $?"
$TL convert $M:conv.weight --to NHWC --select 'conv*' -o o.safetensors; echo "exit $?"
ls o.safetensors 2>&1
mkdir -p outdir; cp $M m.safetensors
$TL convert $M --to NHWC -o outdir; echo "exit $?"
$TL convert m.safetensors --to NHWC -o m.safetensors --format raw; echo "exit $?"; cmp m.safetensors $M && echo input unchanged
$TL convert $M --to NHWC -o w.npy; echo "exit $?"
