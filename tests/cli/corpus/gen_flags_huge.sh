$TL inspect bad/gen_flags_huge.json
