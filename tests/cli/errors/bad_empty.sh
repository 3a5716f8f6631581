$TL inspect bad/empty.json
