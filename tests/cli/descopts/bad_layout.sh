$TL dump --type f4 --sizes 1,1,3,5 --layout NHWX examples/nhwc.bin
