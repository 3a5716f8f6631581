$TL inspect bad/gen_malformed_trailing_comma_object.json
