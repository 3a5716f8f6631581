$TL inspect examples/nhwc.json
