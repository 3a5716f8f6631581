$TL dump --type flaot32 --sizes 2,3 examples/hw.bin
