$TL inspect bad/gen_totalTensorSizeInBytes_true.json
