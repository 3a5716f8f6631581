$TL inspect bad/gen_broadcast_above2_64.json
