$TL inspect bad/gen_wrapper_no_type.json
