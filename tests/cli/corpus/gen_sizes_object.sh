$TL inspect bad/gen_sizes_object.json
