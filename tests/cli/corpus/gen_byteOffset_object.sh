$TL inspect bad/gen_byteOffset_object.json
