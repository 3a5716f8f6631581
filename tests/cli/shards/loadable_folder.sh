# Sharded output is a loadable folder (SPEC 19): the other files of the
# model's folder (config.json, the tokenizer's) are copied beside the new
# shards and index, whole or job by job; weights of other files are not;
# list DIR finds the index (or a folder's one tensor file).
mkdir m
cp examples/sharded/* m/
echo '{"model_type": "demo"}' > m/config.json
echo '{"version": "1.0"}' > m/tokenizer.json
cp examples/model.safetensors m/extra.safetensors
echo hidden > m/.cache
$TL convert m/model.safetensors.index.json --to-type FLOAT16 -o out/; echo exit $?
ls -A out
cmp m/config.json out/config.json && cmp m/tokenizer.json out/tokenizer.json && echo copied
for s in model-00001-of-00002.safetensors model-00002-of-00002.safetensors; do
    $TL convert m/model.safetensors.index.json --to-type FLOAT16 --shard $s -o jobs/
done
$TL convert m/model.safetensors.index.json --index-only -o jobs/; echo exit $?
ls -A jobs
$TL list out/ | tail -n 1; echo exit $?
mkdir one; cp examples/model.safetensors one/
$TL list one | head -n 2
$TL list examples; echo exit $?
mkdir empty; $TL list empty; echo exit $?
# --index-only before the jobs: the error names OUTDIR and what to do
$TL convert m/model.safetensors.index.json --index-only -o early/; echo exit $?
