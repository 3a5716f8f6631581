$TL inspect bad/gen_layout_neg_zero_frac.json
