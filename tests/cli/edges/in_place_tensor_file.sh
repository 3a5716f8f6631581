cp examples/nchw.npy x.npy; $TL convert x.npy -o x.npy --to NHWC && $TL list x.npy | tail -n 3 | head -n 1
