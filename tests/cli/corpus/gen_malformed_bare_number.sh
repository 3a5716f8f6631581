$TL inspect bad/gen_malformed_bare_number.json
