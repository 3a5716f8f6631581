$TL inspect bad/strides_null_entry.json
