$TL inspect bad/gen_malformed_unquoted_key.json
