$TL inspect bad/gen_totalTensorSizeInBytes_string.json
