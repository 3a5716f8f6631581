$TL inspect bad/gen_strides_neg_zero_frac.json
