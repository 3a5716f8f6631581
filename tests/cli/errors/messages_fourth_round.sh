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
# sizes given in memory order; a file a type's factor too short; the
# DirectML problem names its key; --out-desc's mistakes name the file
$TL inspect '{"dataType":"FLOAT32","sizes":[1,224,224,3],"layout":"NHWC"}' > /dev/null; echo exit $?
head -c 24 /dev/zero > h.bin
$TL dump '{"dataType":"FLOAT32","sizes":[2,6]}' h.bin; echo exit $?
$TL inspect '{"dataType":"FLOAT32","sizes":[2,6]}' h.bin | tail -n 1; echo exit $?
$TL inspect '{"dataType":"FLOAT32","sizes":[1]}' | grep span
$TL inspect '{"dataType":"UINT4","sizes":[3]}' examples/uint4.bin | grep span
cp examples/nchw.json examples/nchw.bin .
$TL convert nchw.json nchw.bin --to NHWC -o o.bin --out-desc nchw.json; echo exit $?
mkdir dir
$TL convert nchw.json nchw.bin --to NHWC -o o.bin --out-desc dir; echo exit $?
ls o.bin 2>/dev/null
