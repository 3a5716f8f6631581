$TL inspect bad/gen_broadcast_neg_zero_frac.json
