$TL inspect bad/gen_dtype_int2.json
