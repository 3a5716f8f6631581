# Axes of size 1 are not drawn as grids of one cell (issue 46: a 1x16x1x1
# bias drew as 16 grids of 1x1, 13 of them left out): the two innermost
# axes longer than one are the rows and columns.
$TL draw --color never --type f16 --sizes 1,16,1,1
$TL draw --color never --type f32 --sizes 2,3,1,1 | sed -n 3,7p
$TL draw --color never --type f32 --sizes 1,1,1,1 | sed -n 3,6p
