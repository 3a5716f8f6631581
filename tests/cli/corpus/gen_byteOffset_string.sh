$TL inspect bad/gen_byteOffset_string.json
