# --layout gives packed strides in that memory order; --json shows them
$TL inspect --json --type F32 --sizes 1,1,3,5 --layout NHWC examples/nhwc.bin
