$TL dump examples/wh.json examples/wh.bin
