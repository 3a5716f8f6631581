$TL inspect bad/gen_dtype_empty.json
