$TL inspect bad/wrapper_type.json
