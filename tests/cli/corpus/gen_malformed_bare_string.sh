$TL inspect bad/gen_malformed_bare_string.json
