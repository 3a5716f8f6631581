# strides 1,1: elements share slots beyond any broadcast
$TL draw --color never examples/overlap.json
