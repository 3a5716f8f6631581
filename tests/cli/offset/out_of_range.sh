$TL offset examples/dhw.json 1,2,0
