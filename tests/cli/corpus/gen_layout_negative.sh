$TL inspect bad/gen_layout_negative.json
