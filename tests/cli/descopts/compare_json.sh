# compare --json with options on both sides
$TL compare --json --type f4 --type f4 --sizes 2,3 --strides 5,1 --strides 3,1 examples/padded.bin examples/hw.bin
echo "exit $?"
