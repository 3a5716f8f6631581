# --max-shard-size re-shards (SPEC 19): merged into one model.safetensors
# (no index) when every tensor fits, split into shards of at most SIZE
# bytes of tensors (a larger tensor alone) named as save_pretrained names
# them, the index rewritten; the model's other files copied; the values
# the same (compare); rules applied on the way.  Bad sizes and the options
# it does not go with: one line, exit 2, nothing written.
mkdir m
cp examples/sharded/* m/
echo '{"model_type": "demo"}' > m/config.json
$TL convert m/model.safetensors.index.json --max-shard-size 5GB -o one/ --json; echo exit $?
ls -A one
$TL compare m/model.safetensors.index.json one/model.safetensors | tail -n 1
$TL convert m/model.safetensors.index.json --max-shard-size 400 -o four/; echo exit $?
ls -A four
cat four/model.safetensors.index.json
$TL list four/ | tail -n 1
$TL compare m four/ | tail -n 1
$TL compare m/ bf16; echo exit $?
$TL convert m/model.safetensors.index.json --to-type BF16 --max-shard-size 1KiB -o bf16/; echo exit $?
ls -A bf16
$TL list bf16/ | cut -c1-40
# what is refused
$TL convert m/model.safetensors.index.json --max-shard-size 0 -o x/; echo exit $?
$TL convert m/model.safetensors.index.json --max-shard-size 2XB -o x/; echo exit $?
$TL convert m/model.safetensors.index.json --max-shard-size 5GB --index-only -o x/; echo exit $?
$TL convert examples/model.safetensors --max-shard-size 5GB -o x.safetensors; echo exit $?
ls -A | grep -c '^x'
# one file into shards (SPEC 23): split at the size, the index naming them;
# all in one: model.safetensors alone; rules apply on the way
$TL convert examples/mixed.safetensors --max-shard-size 20 -o split/ --json; echo exit $?
ls split
$TL list split/ | tail -n 1
$TL compare split/model.safetensors.index.json examples/mixed.safetensors; echo exit $?
$TL convert examples/checkpoint.pt --only 'model.*' --to-type FLOAT16 --max-shard-size 1GB -o whole/ -q; echo exit $?
ls whole
$TL list whole/model.safetensors | head -n 3
$TL convert examples/mixed.safetensors --max-shard-size 20 -o split/; echo exit $?
$TL convert examples/mixed.safetensors:w --max-shard-size 20 -o x/; echo exit $?
