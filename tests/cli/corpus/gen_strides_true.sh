$TL inspect bad/gen_strides_true.json
