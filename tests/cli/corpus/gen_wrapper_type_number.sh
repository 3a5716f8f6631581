$TL inspect bad/gen_wrapper_type_number.json
