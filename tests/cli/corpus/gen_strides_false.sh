$TL inspect bad/gen_strides_false.json
