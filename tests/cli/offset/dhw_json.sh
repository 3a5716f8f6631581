$TL offset --json examples/dhw.json 1,0,1 0,1,0
