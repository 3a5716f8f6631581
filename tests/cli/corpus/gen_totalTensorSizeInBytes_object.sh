$TL inspect bad/gen_totalTensorSizeInBytes_object.json
