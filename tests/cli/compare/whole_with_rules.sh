# compare A B --to L (SPEC 23): B against A converted by the rules, as
# convert applies them; a correct conversion compares equal, a wrong one
# does not; --to-type rounds A as the conversion does; the rules and the
# axes options each belong to their own kind of comparison
$TL convert examples/mixed.safetensors --to OHWI -o ohwi.safetensors
$TL compare examples/mixed.safetensors ohwi.safetensors | tail -n 1; echo exit $?
$TL compare examples/mixed.safetensors ohwi.safetensors --to OHWI; echo exit $?
$TL compare examples/mixed.safetensors ohwi.safetensors --to OIHW --json; echo exit $?
$TL convert examples/mixed.safetensors --to OHWI --to-type BFLOAT16 -o bf.safetensors
$TL compare examples/mixed.safetensors bf.safetensors --to OHWI --to-type BF16 | tail -n 1; echo exit $?
$TL convert examples/model.gguf --to-type FLOAT16 -o half.safetensors -q
$TL compare examples/model.gguf half.safetensors | tail -n 1; echo exit $?
$TL compare examples/model.gguf half.safetensors --to-type FLOAT16 | tail -n 1; echo exit $?
$TL compare examples/model.gguf half.safetensors --to-type FLOAT16 --exclude 'output*' | tail -n 1; echo exit $?
$TL compare examples/mixed.safetensors ohwi.safetensors --axes-b OHWI; echo exit $?
$TL compare examples/mixed.safetensors:conv.weight ohwi.safetensors:conv.weight --to OHWI; echo exit $?
$TL compare examples/mixed.safetensors ohwi.safetensors --to-type INT8; echo exit $?
