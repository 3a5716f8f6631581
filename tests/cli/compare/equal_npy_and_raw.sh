$TL convert examples/nchw.npy --to NHWC -o x.bin --out-desc x.json && $TL compare examples/nchw.npy x.json x.bin; echo exit $?
