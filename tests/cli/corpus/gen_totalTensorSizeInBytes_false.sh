$TL inspect bad/gen_totalTensorSizeInBytes_false.json
