cp examples/nchw.json d.json; $TL convert d.json examples/nchw.bin -o d.json --to NHWC; echo exit $?; cmp d.json examples/nchw.json && echo kept
