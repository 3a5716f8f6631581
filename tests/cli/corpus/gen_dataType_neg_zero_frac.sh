$TL inspect bad/gen_dataType_neg_zero_frac.json
