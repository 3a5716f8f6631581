# a conversion: the source and the destination, the same element the same colour
$TL draw --color never examples/nchw.json --to NHWC
