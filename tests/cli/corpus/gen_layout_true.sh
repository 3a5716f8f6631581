$TL inspect bad/gen_layout_true.json
