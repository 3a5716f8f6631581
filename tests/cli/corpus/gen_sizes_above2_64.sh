$TL inspect bad/gen_sizes_above2_64.json
