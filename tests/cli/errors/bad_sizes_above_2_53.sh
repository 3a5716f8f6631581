$TL inspect bad/sizes_above_2_53.json
