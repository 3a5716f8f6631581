$TL inspect bad/dtype_number.json
