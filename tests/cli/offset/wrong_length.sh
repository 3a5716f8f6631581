$TL offset examples/dhw.json 1,0
