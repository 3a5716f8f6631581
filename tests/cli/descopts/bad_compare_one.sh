# compare with options needs A's DATA and B's
$TL compare --type f32 --sizes 2,3 examples/hw.bin
