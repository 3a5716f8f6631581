# --index-only checks that the shards agree on the rules (issue 45: shards
# converted to different types were accepted): each converted shard
# records its rules in its __metadata__ (tensorlayout.rules); shards that
# disagree, a shard with no record, or rules given to --index-only that
# are not the jobs': one line naming them, exit 4, no index written.
I=examples/sharded/model.safetensors.index.json
A=model-00001-of-00002.safetensors B=model-00002-of-00002.safetensors
$TL convert $I --to-type bf16 --shard $A -o same/
$TL convert $I --to-type BFLOAT16 --shard $B -o same/
$TL list same/$B --metadata | grep rules
$TL convert $I --index-only -o same/; echo exit $?
$TL convert $I --to-type bfloat16 --index-only -o same/; echo exit $?
$TL convert $I --to-type f16 --index-only -o same/; echo exit $?
$TL convert $I --to-type BFLOAT16 --shard $A -o mixed/
$TL convert $I --to-type FLOAT16 --shard $B -o mixed/
$TL convert $I --index-only -o mixed/; echo exit $?
ls mixed
mkdir plain; cp examples/sharded/*.safetensors plain/
$TL convert $I --index-only -o plain/; echo exit $?
ls plain
