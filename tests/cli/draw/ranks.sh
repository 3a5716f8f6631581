# 1-D to 8-D: one grid per outer index, named by it
for sizes in 3 2,3 2,2,3 1,2,2,2 1,2,1,2,2 2,1,1,1,1,2 1,1,1,1,1,1,2,2 2,1,1,1,1,1,1,2; do
    $TL draw --color never --type u8 --sizes $sizes
    echo
done
