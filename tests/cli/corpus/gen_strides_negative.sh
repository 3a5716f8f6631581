$TL inspect bad/gen_strides_negative.json
