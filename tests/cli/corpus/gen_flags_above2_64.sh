$TL inspect bad/gen_flags_above2_64.json
