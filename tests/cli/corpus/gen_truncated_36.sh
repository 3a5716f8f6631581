$TL inspect bad/gen_truncated_36.json
