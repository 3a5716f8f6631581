$TL inspect bad/gen_sizes_null.json
