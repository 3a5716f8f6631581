# Each broken model: one line, exit 4 (2 for a bad OUT), nothing written.
mkdir m && cp examples/sharded/*.safetensors m/
idx() { printf '{"metadata": {"total_size": 1224}, "weight_map": %s}' "$1" > m/model.safetensors.index.json; }
run() { $TL convert m/model.safetensors.index.json --to-type FLOAT16 -o out/; echo exit $?; ls -a | grep -c 'out'; }
A=model-00001-of-00002.safetensors B=model-00002-of-00002.safetensors
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"$B\", \"steps\": \"$B\"}"
run; rm -rf out
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"missing.safetensors\", \"steps\": \"$B\"}"
run
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"$B\", \"steps\": \"$B\", \"ghost\": \"$B\"}"
run
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$B\", \"fc.weight\": \"$B\", \"steps\": \"$B\"}"
run
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"$B\"}"
run
idx "{\"conv1.weight\": \"../$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"$B\", \"steps\": \"$B\"}"
run
idx "{\"conv1.weight\": \"/tmp/$A\"}"
run
idx "[\"$A\"]"
run
idx "{\"conv1.weight\": 3}"
run
printf '{"metadata": 3, "weight_map": {}}' > m/model.safetensors.index.json; run
# a shard that is not a safetensors file, and one cut short: no out/, no temporary folder
idx "{\"conv1.weight\": \"$A\", \"conv1.bias\": \"$A\", \"fc.weight\": \"$B\", \"steps\": \"$B\"}"
head -c 100 examples/sharded/$B > m/$B; run
printf 'not a shard' > m/$B; run
cp examples/sharded/$B m/
# OUT: not a folder, a folder that is not empty, options that name one tensor
$TL convert m/model.safetensors.index.json --to-type FLOAT16 -o out.safetensors; echo exit $?
mkdir full && touch full/x
$TL convert m/model.safetensors.index.json --to-type FLOAT16 -o full/; echo exit $?; ls full
$TL convert m/model.safetensors.index.json --to-type FLOAT16 --name x -o out/; echo exit $?
$TL convert m/model.safetensors.index.json --to-type FLOAT16 --shard nope.safetensors -o out/; echo exit $?
$TL convert m/model.safetensors.index.json --to OIHW -o out/; echo exit $?
$TL convert examples/model.safetensors --shard x -o out.safetensors; echo exit $?
ls -a | grep -c out
