$TL inspect bad/gen_totalTensorSizeInBytes_negative.json
