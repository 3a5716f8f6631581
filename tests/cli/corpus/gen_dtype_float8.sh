$TL inspect bad/gen_dtype_float8.json
