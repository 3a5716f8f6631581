$TL inspect bad/sizes_rank9.json
