$TL inspect bad/gen_broadcast_true.json
