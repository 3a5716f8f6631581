$TL draw --values examples/padded.json
