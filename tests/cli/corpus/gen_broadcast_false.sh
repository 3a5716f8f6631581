$TL inspect bad/gen_broadcast_false.json
