$TL dump --physical --json examples/padded.json examples/padded.bin
