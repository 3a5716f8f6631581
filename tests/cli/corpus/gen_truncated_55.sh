$TL inspect bad/gen_truncated_55.json
