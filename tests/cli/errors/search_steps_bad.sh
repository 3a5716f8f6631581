$TL offset examples/nchw.json --byte 4 --search-steps 0
echo "exit $?"
$TL dump --physical examples/nchw.json examples/nchw.bin --search-steps -3
echo "exit $?"
$TL offset examples/nchw.json --byte 4 --search-steps 18446744073709551616
