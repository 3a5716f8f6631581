printf "\000\000\300\177\000\000\200\177\000\000\200\377" > nf.bin; $TL dump --json '{"dataType": "FLOAT32", "sizes": [3]}' nf.bin; $TL dump '{"dataType": "FLOAT32", "sizes": [3]}' nf.bin
