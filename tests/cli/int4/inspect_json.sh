$TL inspect --json --padding --type int4 --sizes 2,3 --strides 5,1
