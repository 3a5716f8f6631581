$TL dump --type f4 --sizes 2,3
