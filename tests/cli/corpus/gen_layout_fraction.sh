$TL inspect bad/gen_layout_fraction.json
