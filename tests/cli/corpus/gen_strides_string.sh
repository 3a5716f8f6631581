$TL inspect bad/gen_strides_string.json
