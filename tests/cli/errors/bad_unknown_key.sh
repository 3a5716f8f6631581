$TL inspect bad/unknown_key.json
