cp examples/nchw.npy x.npy && $TL convert x.npy --to NHWC -o x.npy && $TL dump x.npy --axes NHWC | head -n 3
