$TL inspect bad/gen_strides_fraction.json
