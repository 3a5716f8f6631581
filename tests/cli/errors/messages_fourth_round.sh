# Messages that say what is wrong (issue 76): a negative number, words after
# '--', JSON cut short.
$TL offset examples/nchw.json 0,-1,0,0; echo exit $?
$TL dump --type float32 --sizes 2,-3 examples/nchw.bin; echo exit $?
$TL dump --type float32 --sizes 2 --strides -1 examples/nchw.bin; echo exit $?
$TL convert -q -- examples/nchw.json examples/nchw.bin --to NHWC -o out.bin; echo exit $?
$TL convert -q --to NHWC -o out.bin -- examples/nchw.json examples/nchw.bin; echo exit $?
$TL inspect '{"dataType":"FLOAT32","sizes":[1,2'; echo exit $?
$TL inspect '{"dataType":"FLOAT32","sizes":[1,2]'; echo exit $?
$TL inspect '{"dataType":"FLOAT'; echo exit $?
