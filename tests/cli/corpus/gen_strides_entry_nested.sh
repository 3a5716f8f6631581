$TL inspect bad/gen_strides_entry_nested.json
