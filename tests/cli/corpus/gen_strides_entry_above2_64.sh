$TL inspect bad/gen_strides_entry_above2_64.json
