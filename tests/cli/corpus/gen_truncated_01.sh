$TL inspect bad/gen_truncated_01.json
