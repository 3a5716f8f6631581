printf "\041\103\005" > p.bin; $TL dump --physical --type uint4 --sizes 2,2 --strides 3,1 p.bin; $TL dump --physical --json --type int4 --sizes 2,2 --strides 3,1 p.bin
