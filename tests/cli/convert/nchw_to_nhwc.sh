$TL convert examples/nchw.json examples/nchw.bin -o out.bin --to NHWC && cmp out.bin examples/nhwc.bin && echo identical to examples/nhwc.bin; ls -A
