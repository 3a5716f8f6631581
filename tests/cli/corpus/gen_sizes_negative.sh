$TL inspect bad/gen_sizes_negative.json
