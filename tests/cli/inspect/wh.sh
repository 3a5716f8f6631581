$TL inspect examples/wh.json
