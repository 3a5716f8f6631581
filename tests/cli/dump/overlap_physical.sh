$TL dump --physical examples/overlap.json examples/overlap.bin
