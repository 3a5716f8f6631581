$TL strides --type int4 --sizes 3,5 --layout HW --pitch 8; $TL strides --type uint4 --sizes 2,33 --layout HW --pitch 4 --json
