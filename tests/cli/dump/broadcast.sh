$TL dump examples/broadcast.json examples/broadcast.bin
