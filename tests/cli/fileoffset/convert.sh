# fileOffset in a destination: OUT starts with fileOffset + byteOffset zero
# bytes, and --out-desc and --json give both back.
printf 'HEAD\000\000\000\000\000\000\200\077\000\000\000\100\000\000\100\100' > d.bin
D='{"dataType":"FLOAT32","sizes":[2,2],"fileOffset":4}'
$TL convert "$D" d.bin --to WH -o wh.bin --out-desc wh.json && od -An -tx1 wh.bin && cat wh.json
$TL convert "$D" d.bin --to-desc '{"dataType":"FLOAT32","sizes":[2,2],"fileOffset":3,"byteOffset":16}' -o o.bin --json --out-desc o.json
od -An -tx1 o.bin; $TL dump o.json o.bin
$TL convert "$D" d.bin --to-desc '{"dataType":"FLOAT32","sizes":[2,2],"fileOffset":3}' -o o.npy; echo "exit $?"
