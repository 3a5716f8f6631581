$TL offset examples/dhw.json 1,x,0
