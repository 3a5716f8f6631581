$TL dump - - < examples/hw.json
