$TL inspect bad/dimension_count.json
