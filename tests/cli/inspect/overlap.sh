$TL inspect examples/overlap.json
