$TL inspect bad/gen_totalTensorSizeInBytes_huge.json
