$TL inspect bad/gen_sizes_entry_true.json
