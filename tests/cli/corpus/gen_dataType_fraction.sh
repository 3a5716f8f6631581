$TL inspect bad/gen_dataType_fraction.json
