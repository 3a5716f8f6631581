$TL dump --type f4 --sizes 2x3 examples/hw.bin
