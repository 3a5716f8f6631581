$TL inspect - < examples/hw.json
