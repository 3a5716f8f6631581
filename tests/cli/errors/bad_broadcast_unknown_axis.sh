$TL inspect bad/broadcast_unknown_axis.json
