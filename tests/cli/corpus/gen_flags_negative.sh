$TL inspect bad/gen_flags_negative.json
