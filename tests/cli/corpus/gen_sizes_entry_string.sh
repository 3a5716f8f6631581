$TL inspect bad/gen_sizes_entry_string.json
