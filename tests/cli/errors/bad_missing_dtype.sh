$TL inspect bad/missing_dtype.json
