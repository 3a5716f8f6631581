$TL inspect bad/gen_dimensionCount_neg_zero_frac.json
