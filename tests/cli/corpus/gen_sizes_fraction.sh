$TL inspect bad/gen_sizes_fraction.json
