$TL inspect bad/gen_strides_huge.json
