$TL inspect bad/gen_sizes_huge.json
