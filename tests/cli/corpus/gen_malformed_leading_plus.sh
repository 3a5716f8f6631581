$TL inspect bad/gen_malformed_leading_plus.json
