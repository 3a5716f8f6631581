$TL offset examples/dhw.json --byte 28
