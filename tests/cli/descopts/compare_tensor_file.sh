# a tensor file describes itself; the options describe the raw DATA file
# beside it, on either side: did a conversion keep the values?
$TL convert examples/nchw.npy --to NHWC --format raw -o out.bin
$TL compare examples/nchw.npy --type FLOAT32 --sizes 1,2,2,3 --layout NHWC out.bin
$TL compare --type f4 --sizes 1,2,2,3 --layout NHWC out.bin examples/nchw.npy
# read as NCHW, it differs
$TL compare examples/nchw.npy --type FLOAT32 --sizes 1,2,2,3 --show 0 out.bin
echo "exit $?"
