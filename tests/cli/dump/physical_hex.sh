# dump --physical --hex: each slot's bytes as the file holds them (issue 46:
# a 0xCDCDCDCD fill printed only as -431602080); a 4-bit slot its nibble.
printf '\001\000\000\000\315\315\315\315\002\000\000\000\315\315\315\315' > d.bin
$TL dump --physical --hex '{"dataType":"INT32","sizes":[2],"strides":[2]}' d.bin
$TL dump --physical --hex examples/uint4.json examples/uint4.bin
$TL dump --hex examples/nchw.json examples/nchw.bin; echo exit $?
$TL dump --physical --hex --json examples/nchw.json examples/nchw.bin; echo exit $?
