$TL inspect bad/gen_truncated_24.json
