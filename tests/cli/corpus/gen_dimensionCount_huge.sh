$TL inspect bad/gen_dimensionCount_huge.json
