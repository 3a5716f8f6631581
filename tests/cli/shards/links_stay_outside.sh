# A model's folder whose files are symbolic links to things outside it (a
# secret, the process's environment): nothing outside is read or copied.
# Files that are links are not copied (a note names each); a shard that is
# a link is refused.
mkdir m
cp examples/sharded/* m/
echo "token=SECRET" > secret.txt
ln -s "$PWD/secret.txt" m/config.json
ln -s ../secret.txt m/tokenizer.json
ln -s /proc/self/environ m/README.md
$TL convert m/model.safetensors.index.json --to-type BFLOAT16 -o out/ 2>err; echo exit $?; sort err
ls out
grep -rl SECRET out || echo "no secret in out/"
mv m/model-00002-of-00002.safetensors shard2
ln -s "$PWD/shard2" m/model-00002-of-00002.safetensors
$TL list m/model.safetensors.index.json; echo exit $?
$TL convert m/model.safetensors.index.json --to-type BFLOAT16 -o out2/; echo exit $?
ls -d out2 2>/dev/null || echo "no out2"
