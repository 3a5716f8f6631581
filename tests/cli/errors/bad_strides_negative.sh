$TL inspect bad/strides_negative.json
