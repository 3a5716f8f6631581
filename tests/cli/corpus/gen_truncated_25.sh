$TL inspect bad/gen_truncated_25.json
