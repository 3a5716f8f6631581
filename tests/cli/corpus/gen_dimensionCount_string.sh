$TL inspect bad/gen_dimensionCount_string.json
