$TL inspect bad/gen_flags_true.json
