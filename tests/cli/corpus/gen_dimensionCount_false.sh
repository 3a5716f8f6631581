$TL inspect bad/gen_dimensionCount_false.json
