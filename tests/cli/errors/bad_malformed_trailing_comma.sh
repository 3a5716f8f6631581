$TL inspect bad/malformed_trailing_comma.json
