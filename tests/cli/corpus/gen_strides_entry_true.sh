$TL inspect bad/gen_strides_entry_true.json
