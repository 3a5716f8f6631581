$TL inspect bad/gen_wrapper_desc_null.json
