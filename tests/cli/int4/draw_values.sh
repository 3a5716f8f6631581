$TL draw --values --color never examples/int4_weight.json examples/int4_weight.bin
