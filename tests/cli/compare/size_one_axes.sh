# Sizes that differ only by axes of size 1 ([16] against [1,16,1,1], a bias
# as a vector and as DirectML's 4-D tensor) compare, with a note (issue 46:
# "the sizes differ", exit 1); other differences still differ.
head -c 64 /dev/zero > z.bin
$TL compare '{"dataType":"FLOAT32","sizes":[16]}' z.bin '{"dataType":"FLOAT16","sizes":[1,16,1,1],"layout":"NHWC"}' z.bin; echo exit $?
$TL compare '{"dataType":"FLOAT32","sizes":[2,1,8]}' z.bin '{"dataType":"FLOAT32","sizes":[2,8]}' z.bin; echo exit $?
$TL compare '{"dataType":"FLOAT32","sizes":[4,4]}' z.bin '{"dataType":"FLOAT32","sizes":[1,16,1,1]}' z.bin; echo exit $?
$TL compare '{"dataType":"FLOAT32","sizes":[8,2]}' z.bin '{"dataType":"FLOAT32","sizes":[2,1,8]}' z.bin; echo exit $?
