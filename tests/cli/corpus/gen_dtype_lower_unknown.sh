$TL inspect bad/gen_dtype_lower_unknown.json
