# --to-type alone keeps the source's memory order, packed.
$TL convert examples/nhwc.json examples/nhwc.bin --to-type FLOAT16 -o h.bin --json
$TL dump examples/nhwc.json examples/nhwc.bin > a.txt; $TL dump '{"dataType": "FLOAT16", "sizes": [1, 1, 3, 5], "strides": [15, 1, 5, 1]}' h.bin > b.txt; cmp a.txt b.txt && echo same values
$TL convert examples/padded.json examples/padded.bin --to-type INT8 -o p.bin --json
$TL convert examples/hw.json examples/hw.bin -o x.bin; echo "exit $?"
