$TL inspect bad/gen_layout_huge.json
