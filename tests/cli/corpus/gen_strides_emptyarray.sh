$TL inspect bad/gen_strides_emptyarray.json
