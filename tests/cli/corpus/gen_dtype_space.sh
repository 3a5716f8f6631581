$TL inspect bad/gen_dtype_space.json
