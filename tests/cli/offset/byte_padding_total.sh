$TL offset --json examples/padded.json --byte 39
