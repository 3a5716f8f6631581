$TL size examples/uint4.json; $TL size --type int4 --sizes 4096,4096; $TL size --type uint4 --sizes 7 --strides 1
