$TL inspect bad/gen_broadcast_fraction.json
