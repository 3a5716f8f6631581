$TL inspect bad/gen_flags_fraction.json
