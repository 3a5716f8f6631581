$TL inspect bad/gen_broadcast_object.json
