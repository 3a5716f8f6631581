$TL inspect bad/gen_dimensionCount_emptyarray.json
