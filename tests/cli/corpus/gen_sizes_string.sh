$TL inspect bad/gen_sizes_string.json
