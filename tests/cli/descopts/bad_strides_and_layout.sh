$TL dump --type f4 --sizes 2,3 --strides 3,1 --layout WH examples/hw.bin
