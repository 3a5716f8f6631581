# 2x3 row-major (HW) and column-major (WH): the same logical grid, other offsets
$TL draw --color never examples/hw.json
echo
$TL draw --color never examples/wh.json
