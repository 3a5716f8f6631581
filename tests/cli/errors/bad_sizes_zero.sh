$TL inspect bad/sizes_zero.json
