$TL offset examples/dhw.json
