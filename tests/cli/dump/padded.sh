$TL dump examples/padded.json examples/padded.bin
