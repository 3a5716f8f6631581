$TL list examples/padded.json
