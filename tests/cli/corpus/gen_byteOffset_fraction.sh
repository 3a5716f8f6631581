$TL inspect bad/gen_byteOffset_fraction.json
