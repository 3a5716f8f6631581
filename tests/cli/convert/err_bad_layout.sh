$TL convert examples/nchw.json examples/nchw.bin -o out.bin --to NHWQ; echo exit $?; ls -A
