# Sharded output is a loadable folder (SPEC 19, 23): the files of the
# model's folder a loader reads (config.json, the tokenizer's) are copied beside the new
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
# only what a loader reads is copied, and the note says which (SPEC 23)
mkdir k; cp examples/sharded/* k/
echo '{}' > k/config.json; echo '{}' > k/generation_config.json; echo '{}' > k/tokenizer_config.json
echo 'x' > k/train.sh; echo 'y' > k/log.txt; echo 'z' > k/README.md
$TL convert k/model.safetensors.index.json --to-type FLOAT16 -o kout/; echo exit $?
ls -A kout
# an OUTDIR that holds files: refused, or with --force replaced whole
$TL convert k/model.safetensors.index.json --to-type BFLOAT16 -o kout/ -q; echo exit $?
$TL list kout/ --json | grep -o '"dataType":"[A-Z0-9]*"' | sort -u
$TL convert k/model.safetensors.index.json --to-type BFLOAT16 -o kout/ -q --force; echo exit $?
$TL list kout/ --json | grep -o '"dataType":"[A-Z0-9]*"' | sort -u
ls -A . | grep -c tmp
$TL convert k/model.safetensors.index.json --to-type BFLOAT16 -o kout/ --force --index-only; echo exit $?
$TL convert examples/model.safetensors --to-type FLOAT16 -o f.safetensors --force; echo exit $?
