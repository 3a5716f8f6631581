$TL inspect bad/gen_broadcast_negative.json
