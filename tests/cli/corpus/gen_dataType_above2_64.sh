$TL inspect bad/gen_dataType_above2_64.json
