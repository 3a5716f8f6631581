$TL inspect bad/gen_sizes_entry_above2_64.json
