$TL dump --type f4 examples/padded.bin
