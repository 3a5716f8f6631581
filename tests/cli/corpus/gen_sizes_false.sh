$TL inspect bad/gen_sizes_false.json
