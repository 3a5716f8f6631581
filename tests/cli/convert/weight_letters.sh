# Weight letters: O and I name axes 0 and 1 at ranks 3 to 5 (OIHW is NCHW),
# and cannot be mixed with the letters they stand for.
$TL strides --sizes 8,3,5,5 --layout OHWI
$TL strides --sizes 8,3,5,5 --layout HWIO
$TL strides --sizes 8,3,5 --layout OWI
$TL strides --sizes 2,8,3,5,5 --layout ODHWI
$TL strides --sizes 8,3,5,5 --layout NHWI; echo "exit $?"
$TL convert examples/nchw.json examples/nchw.bin --to OHWI -o w.bin && cmp w.bin examples/nhwc.bin && echo same as NHWC
