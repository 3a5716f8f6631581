$TL inspect bad/gen_dataType_false.json
