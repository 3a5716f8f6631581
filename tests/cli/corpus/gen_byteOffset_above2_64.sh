$TL inspect bad/gen_byteOffset_above2_64.json
