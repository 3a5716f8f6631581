$TL inspect bad/gen_dimensionCount_fraction.json
