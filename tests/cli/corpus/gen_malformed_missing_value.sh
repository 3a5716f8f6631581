$TL inspect bad/gen_malformed_missing_value.json
