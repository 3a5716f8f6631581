$TL inspect bad/gen_layout_false.json
