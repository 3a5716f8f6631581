$TL inspect bad/gen_dataType_null.json
