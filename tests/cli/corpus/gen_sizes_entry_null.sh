$TL inspect bad/gen_sizes_entry_null.json
