$TL inspect bad/non_utf8.json
