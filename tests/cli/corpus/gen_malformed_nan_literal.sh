$TL inspect bad/gen_malformed_nan_literal.json
