$TL offset examples/dhw.json --byte -4
