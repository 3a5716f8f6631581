$TL inspect bad/gen_dimensionCount_above2_64.json
