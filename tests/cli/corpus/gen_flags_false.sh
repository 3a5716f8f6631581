$TL inspect bad/gen_flags_false.json
