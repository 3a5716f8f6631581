$TL inspect --padding --type int4 --sizes 2,3 --strides 5,1 --byte-offset 2 | tail -n 4
