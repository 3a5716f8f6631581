$TL inspect bad/gen_dtype_bfloat16.json
