# examples/padded.svg, which README shows, is what draw writes today
$TL draw --format svg examples/padded.json | cmp - examples/padded.svg && echo same
$TL draw --format svg examples/nchw.npy --to NHWC | cmp - examples/nchw_to_nhwc.svg && echo same
