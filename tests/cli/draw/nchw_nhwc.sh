# NCHW and NHWC {1,1,3,5}
$TL draw --color never examples/nchw.json
echo
$TL draw --color never examples/nhwc.json
