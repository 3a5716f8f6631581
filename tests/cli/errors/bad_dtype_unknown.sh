$TL inspect bad/dtype_unknown.json
