$TL inspect bad/gen_nul_byte.json
