$TL inspect bad/gen_dataType_true.json
