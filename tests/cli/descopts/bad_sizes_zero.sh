$TL size --type f4 --sizes 2,0
