$TL inspect bad/gen_byteOffset_false.json
