# Whole-model conversion into a folder: every shard, then the index, whose
# metadata.total_size is recomputed and other metadata kept.
I=examples/sharded/model.safetensors.index.json
$TL convert $I --to OHWI --to-type BFLOAT16 -o out/ --json; echo exit $?
ls out; ls -a . | grep -c tmp
cat out/model.safetensors.index.json; echo
$TL list out/model.safetensors.index.json; echo exit $?
$TL compare $I:conv1.weight out/model.safetensors.index.json:conv1.weight --axes-b OHWI --atol 0.02; echo exit $?
$TL compare $I:steps out/model.safetensors.index.json:steps; echo exit $?
# one job per shard (any job runner, any machine), then the index
for s in model-00001-of-00002.safetensors model-00002-of-00002.safetensors; do
    $TL convert $I --to OHWI --to-type BFLOAT16 --shard $s -o jobs/; echo exit $?
done
$TL convert $I --index-only -o jobs/; echo exit $?
for f in model-00001-of-00002.safetensors model-00002-of-00002.safetensors model.safetensors.index.json; do
    cmp out/$f jobs/$f && echo same $f
done
# a rule that changes nothing in one shard is no error in that shard's job
$TL convert $I --to OHWI --shard model-00002-of-00002.safetensors -o jobs2/; echo exit $?
