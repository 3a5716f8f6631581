# --values: the cells show values (DATA, or a tensor file's own)
$TL draw --color never --values examples/padded.json examples/padded.bin | head -n 6
$TL draw --color never --values examples/nchw.npy | head -n 8
