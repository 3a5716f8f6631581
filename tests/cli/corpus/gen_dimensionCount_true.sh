$TL inspect bad/gen_dimensionCount_true.json
