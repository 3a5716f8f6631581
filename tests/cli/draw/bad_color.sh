$TL draw --color sometimes examples/padded.json
