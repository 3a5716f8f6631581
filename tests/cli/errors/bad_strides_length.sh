$TL inspect bad/strides_length.json
