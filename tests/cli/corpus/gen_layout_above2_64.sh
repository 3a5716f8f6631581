$TL inspect bad/gen_layout_above2_64.json
