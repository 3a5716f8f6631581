$TL dump --type f4 --sizes 2,3 --strides 1 examples/hw.bin
