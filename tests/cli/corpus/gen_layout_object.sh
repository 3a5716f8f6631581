$TL inspect bad/gen_layout_object.json
