$TL dump --physical examples/broadcast.json examples/broadcast.bin
