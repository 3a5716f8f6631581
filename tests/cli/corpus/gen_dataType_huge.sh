$TL inspect bad/gen_dataType_huge.json
