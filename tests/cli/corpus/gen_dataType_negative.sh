$TL inspect bad/gen_dataType_negative.json
