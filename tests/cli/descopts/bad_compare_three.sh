# given three times: once for both, or twice (A's, then B's)
$TL compare --type f4 --sizes 2,3 --sizes 2,3 --sizes 2,3 examples/hw.bin examples/hw.bin
