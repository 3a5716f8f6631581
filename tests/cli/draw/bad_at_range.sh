$TL draw --at 1,3 examples/padded.json
