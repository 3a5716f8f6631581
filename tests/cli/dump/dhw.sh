$TL dump examples/dhw.json examples/dhw.bin
