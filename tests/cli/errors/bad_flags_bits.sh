$TL inspect bad/flags_bits.json
