# a --to-desc of another dataType converts the values (SPEC section 7)
$TL convert examples/hw.json examples/hw.bin -o out.bin --to-desc '{"dataType": "INT32", "sizes": [2, 3]}' && $TL dump '{"dataType": "INT32", "sizes": [2, 3]}' out.bin
