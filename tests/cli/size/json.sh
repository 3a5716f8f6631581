$TL size --json examples/padded.json
