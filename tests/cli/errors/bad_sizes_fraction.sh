$TL inspect bad/sizes_fraction.json
