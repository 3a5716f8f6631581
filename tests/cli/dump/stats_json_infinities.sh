# dump --stats --json is JSON on every input: infinities and a mean that
# is not a number are the strings dump --json writes ("Infinity",
# "-Infinity", "NaN"), never an empty value.
printf '\000\000\200\077\000\000\200\177' > inf.bin          # FLOAT32 1, +inf
printf '\146\056\377\173\000\200\000\176\000\174\000\374' > h.bin   # FLOAT16 0.1 65504 -0 nan inf -inf
$TL dump --stats --json --type float32 --sizes 2 inf.bin; echo exit $?
$TL dump --stats --json --type float16 --sizes 6 h.bin; echo exit $?
$TL dump --stats --type float16 --sizes 6 h.bin; echo exit $?
