cp examples/nchw.bin d.bin; $TL convert examples/nchw.json d.bin -o o.bin --out-desc d.bin --to NHWC; echo exit $?; cmp d.bin examples/nchw.bin && echo kept
