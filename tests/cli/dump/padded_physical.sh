$TL dump --physical examples/padded.json examples/padded.bin
