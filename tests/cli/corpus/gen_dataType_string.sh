$TL inspect bad/gen_dataType_string.json
