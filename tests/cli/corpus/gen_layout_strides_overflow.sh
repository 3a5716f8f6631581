$TL inspect bad/gen_layout_strides_overflow.json
