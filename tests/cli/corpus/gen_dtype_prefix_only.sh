$TL inspect bad/gen_dtype_prefix_only.json
