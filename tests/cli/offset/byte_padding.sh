$TL offset examples/padded.json --byte 12
