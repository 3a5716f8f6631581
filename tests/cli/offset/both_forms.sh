$TL offset examples/dhw.json 1,0,1 --byte 3
