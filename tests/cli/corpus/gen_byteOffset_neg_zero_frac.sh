$TL inspect bad/gen_byteOffset_neg_zero_frac.json
