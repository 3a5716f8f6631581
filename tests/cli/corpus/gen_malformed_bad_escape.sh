$TL inspect bad/gen_malformed_bad_escape.json
