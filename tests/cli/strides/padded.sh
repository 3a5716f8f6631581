# Padded strides (SPEC section 13): --pad gives an axis more slots, --align
# rounds the next outer stride up to a multiple, --pitch rounds the stride
# of the row axis H (whatever the memory order; AXIS=BYTES another's) up to
# a multiple of bytes, and needs --type; outer strides follow.
$TL strides --sizes 1,32,56,56 --layout NHWC --pad W=64
$TL strides --sizes 1,32,56,56 --layout NHWC --align W=512
$TL strides --sizes 1,32,56,56 --layout NHWC --align W=256
$TL strides --sizes 2,3,5 --layout DHW --type UINT8 --pitch 256
$TL strides --sizes 2,3,5 --layout DHW --type F32 --pitch 256
$TL strides --sizes 1,3,224,224 --layout NCHW --type f2 --pitch 512 --pad C=4 --json
$TL strides --sizes 4,5 --layout HW --align W=8
$TL strides --sizes 2,3,5 --layout DHW --pad H=9 --align W=8 --pitch 64 --type F32
# the row pitch of an NHWC image is H's stride, not the pixel's (issue 46)
$TL strides --sizes 1,16,7,7 --layout NHWC --type FLOAT16 --pitch 256
$TL strides --sizes 1,16,7,7 --layout NHWC --type FLOAT16 --pitch W=64
$TL strides --sizes 1,16,7,7 --layout NHWC --type FLOAT16 --pitch 256 --align C=32
# mistakes: one line each, exit 2 (usage) or 4 (a padding that cannot be)
$TL strides --sizes 2,3,5 --layout DHW --pitch 6 --type F32; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pitch 256; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pitch Q=256 --type U8; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pad W=4; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pad D=9; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pad Q=9; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pad W; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --pad HW=8; echo exit $?
$TL strides --sizes 2,3,5 --layout DHW --broadcast H --pad H=8; echo exit $?
$TL strides --sizes 5 --layout W --pitch 64 --type F32; echo exit $?
$TL strides --sizes 5 --layout W --pitch W=64 --type F32; echo exit $?
