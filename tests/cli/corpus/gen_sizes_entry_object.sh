$TL inspect bad/gen_sizes_entry_object.json
