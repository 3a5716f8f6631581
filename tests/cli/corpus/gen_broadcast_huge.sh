$TL inspect bad/gen_broadcast_huge.json
