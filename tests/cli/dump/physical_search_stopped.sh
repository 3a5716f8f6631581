# slots whose search for owners stopped at --search-steps are "unknown"
head -c 13 /dev/zero > z.bin
$TL dump --physical --search-steps 8 '{"dataType":"UINT8","sizes":[4,4],"strides":[3,1]}' z.bin
$TL dump --physical --json --search-steps 8 '{"dataType":"UINT8","sizes":[4,4],"strides":[3,1]}' z.bin
