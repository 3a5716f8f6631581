$TL inspect bad/gen_malformed_single_quotes.json
