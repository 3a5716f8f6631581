$TL draw --color never examples/hw.json --to-strides 1,4
