$TL inspect bad/gen_dtype_int4.json
