$TL inspect bad/gen_layout_emptyarray.json
