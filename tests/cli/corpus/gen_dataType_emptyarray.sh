$TL inspect bad/gen_dataType_emptyarray.json
