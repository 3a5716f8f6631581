# the reference pages' padded example: A B C x x D E F x x
$TL draw --color never examples/padded.json
