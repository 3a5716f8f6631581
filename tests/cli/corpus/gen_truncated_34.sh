$TL inspect bad/gen_truncated_34.json
