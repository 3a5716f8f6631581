$TL inspect bad/gen_truncated_47.json
