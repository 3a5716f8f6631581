$TL inspect bad/gen_sizes_neg_zero_frac.json
