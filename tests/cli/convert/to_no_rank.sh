# A --to that is a layout of no rank is a usage error naming the letter no
# layout has (SPEC 23: --to BHWC on a whole file said "changes no tensor"),
# on a whole file and a sharded model as on one tensor; nothing is written.
$TL convert examples/model.safetensors --to BHWC -o x.safetensors; echo exit $?
$TL convert examples/sharded/model.safetensors.index.json --to OHWI --to BHWC -o out/; echo exit $?
$TL convert examples/nchw.npy --to nhwk -o x.npy; echo exit $?
ls
