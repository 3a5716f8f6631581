$TL inspect bad/malformed_missing_colon.json
