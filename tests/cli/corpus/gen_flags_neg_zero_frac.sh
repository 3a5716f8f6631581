$TL inspect bad/gen_flags_neg_zero_frac.json
