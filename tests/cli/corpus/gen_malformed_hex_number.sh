$TL inspect bad/gen_malformed_hex_number.json
