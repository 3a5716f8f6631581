cp examples/nchw.bin t.bin && $TL convert examples/nchw.json t.bin -o t.bin --to NHWC && cmp t.bin examples/nhwc.bin && echo converted in place; ls -A
