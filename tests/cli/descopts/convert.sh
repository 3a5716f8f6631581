# a raw NCHW file described by options, converted to NHWC: the bytes of nhwc.bin
$TL convert --type FLOAT32 --sizes 1,1,3,5 examples/nchw.bin --to NHWC -o out.bin
cmp out.bin examples/nhwc.bin && echo same as nhwc.bin
# and into a .npy that numpy would read
$TL convert --type f4 --sizes 1,1,3,5 --layout NCHW examples/nchw.bin --to NHWC -o out.npy --json
