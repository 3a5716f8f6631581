$TL inspect examples/padded.json examples/padded.bin
