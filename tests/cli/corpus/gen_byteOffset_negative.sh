$TL inspect bad/gen_byteOffset_negative.json
