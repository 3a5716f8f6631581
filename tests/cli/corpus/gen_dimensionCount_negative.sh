$TL inspect bad/gen_dimensionCount_negative.json
