# a height-stride of 0: both rows are the same three slots
$TL draw --color never examples/broadcast.json
