$TL inspect bad/duplicate_case.json
