$TL draw --format png examples/padded.json
