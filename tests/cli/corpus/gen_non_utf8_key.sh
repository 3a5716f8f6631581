$TL inspect bad/gen_non_utf8_key.json
