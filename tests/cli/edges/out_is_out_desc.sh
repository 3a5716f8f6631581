$TL convert examples/nchw.json examples/nchw.bin -o o.bin --out-desc o.bin --to NHWC; echo exit $?; ls
