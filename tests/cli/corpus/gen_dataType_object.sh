$TL inspect bad/gen_dataType_object.json
