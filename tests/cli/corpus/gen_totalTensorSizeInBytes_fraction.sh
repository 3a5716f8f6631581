$TL inspect bad/gen_totalTensorSizeInBytes_fraction.json
