$TL offset examples/dhw.json 1,0,1 0,0,0 1,1,2
