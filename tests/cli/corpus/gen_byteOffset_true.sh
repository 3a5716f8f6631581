$TL inspect bad/gen_byteOffset_true.json
