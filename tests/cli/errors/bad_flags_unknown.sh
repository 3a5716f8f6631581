$TL inspect bad/flags_unknown.json
