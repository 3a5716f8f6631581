$TL inspect bad/gen_utf8_bom.json
