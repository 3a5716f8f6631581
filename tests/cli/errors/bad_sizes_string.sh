$TL inspect bad/sizes_string.json
