$TL inspect bad/whitespace_only.json
