$TL inspect --sizes 2,3 examples/padded.bin
