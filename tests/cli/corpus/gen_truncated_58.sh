$TL inspect bad/gen_truncated_58.json
