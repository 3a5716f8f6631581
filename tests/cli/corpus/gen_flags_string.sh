$TL inspect bad/gen_flags_string.json
