$TL inspect bad/not_object.json
