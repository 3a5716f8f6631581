$TL inspect bad/gen_totalTensorSizeInBytes_above2_64.json
