$TL inspect bad/gen_strides_object.json
