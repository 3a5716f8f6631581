# A sharded model is all or nothing: a shard's write failing half-way, or a
# rename failing, leaves no OUTDIR and no temporary folder beside it.  With
# shards in parallel, which failure is said first varies: each message names
# a shard where it would have been.
I=examples/sharded/model.safetensors.index.json
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=write_file_after:300 $TL convert $I --to-type FLOAT16 -o out/ --threads 1; echo exit $?; ls -A
said() { grep -v "^tensorlayout: $1/model-0000[12]-of-00002.safetensors: cannot write: Input/output error$" err || echo "each line names a shard in $1/"; }
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=write_file_after:300 $TL convert $I --to-type FLOAT16 -o out/ --threads 2 2>err; echo exit $?; said out; rm err; ls -A
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=rename $TL convert $I --to-type FLOAT16 -o out/ 2>err; echo exit $?; said out; rm err; ls -A
mkdir empty
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=rename $TL convert $I --to-type FLOAT16 -o empty/ 2>err; echo exit $?; said empty; rm err; ls -A; ls -A empty
