$TL inspect bad/gen_strides_above2_64.json
