# compare two raw files: type and sizes once for both, a layout for each (A's, then B's)
$TL compare --type FLOAT32 --sizes 2,3 --layout HW --layout WH examples/hw.bin examples/wh.bin
# the same layout for both: the column-major file read as row-major differs
$TL compare --type FLOAT32 --sizes 2,3 --show 2 examples/hw.bin examples/wh.bin
echo "exit $?"
