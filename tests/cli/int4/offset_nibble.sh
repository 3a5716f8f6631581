$TL offset examples/uint4.json 0 1 4; $TL offset --json examples/int4_weight.json 1,2
