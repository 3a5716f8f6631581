$TL inspect bad/missing_sizes.json
