$TL inspect bad/gen_truncated_39.json
