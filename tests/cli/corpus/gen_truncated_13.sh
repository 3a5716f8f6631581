$TL inspect bad/gen_truncated_13.json
