$TL inspect bad/gen_wrapper_twice.json
