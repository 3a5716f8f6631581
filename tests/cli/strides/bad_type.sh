$TL strides --sizes 3 --layout W --type FLOAT8
