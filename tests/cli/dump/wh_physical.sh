$TL dump --physical examples/wh.json examples/wh.bin
