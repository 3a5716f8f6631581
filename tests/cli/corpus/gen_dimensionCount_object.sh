$TL inspect bad/gen_dimensionCount_object.json
