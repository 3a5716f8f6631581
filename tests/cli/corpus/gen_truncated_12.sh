$TL inspect bad/gen_truncated_12.json
