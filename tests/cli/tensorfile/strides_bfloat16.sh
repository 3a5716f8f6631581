$TL strides --sizes 2,3 --layout WH --type BFLOAT16 --json
