$TL dump examples/int4_weight.json examples/int4_weight.bin; $TL dump --json examples/int4_weight.json examples/int4_weight.bin
