$TL inspect bad/gen_truncated_05.json
