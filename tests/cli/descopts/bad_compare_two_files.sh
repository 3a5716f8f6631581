# two tensor files leave the options nothing to describe
$TL compare --type f4 --sizes 1,2,2,3 examples/nchw.npy examples/nchw.npy
