$TL inspect bad/gen_deep_in_key.json
