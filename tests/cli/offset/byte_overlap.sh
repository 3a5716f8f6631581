$TL offset examples/overlap.json --byte 8
