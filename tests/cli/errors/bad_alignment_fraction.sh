$TL inspect bad/alignment_fraction.json
