# draw groups a 4-bit tensor's slots by byte (SPEC 19): rows of whole
# bytes, '|' between two bytes; rows of 5 nibbles become rows of 10.
$TL draw --color never --type int4 --sizes 3,5 --strides 6,1 | sed -n '/physical/,$p'
$TL draw --color never --type uint4 --sizes 3,5 | sed -n '/physical/,$p'
