$TL draw --at 1 examples/padded.json
