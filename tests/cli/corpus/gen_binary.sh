$TL inspect bad/gen_binary.json
