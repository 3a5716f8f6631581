$TL inspect bad/sizes_negative.json
