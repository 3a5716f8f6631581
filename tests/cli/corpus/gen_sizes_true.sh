$TL inspect bad/gen_sizes_true.json
