$TL convert examples/nchw.json examples/nchw.bin -o - --out-desc - --to NHWC | wc -c; $TL convert --json examples/nchw.json examples/nchw.bin -o o.bin --out-desc - --to NHWC; echo exit $?; ls
