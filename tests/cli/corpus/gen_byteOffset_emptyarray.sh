$TL inspect bad/gen_byteOffset_emptyarray.json
