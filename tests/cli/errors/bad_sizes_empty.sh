$TL inspect bad/sizes_empty.json
