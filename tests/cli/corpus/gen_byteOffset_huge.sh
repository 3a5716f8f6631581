$TL inspect bad/gen_byteOffset_huge.json
