$TL inspect bad/sizes_not_array.json
