echo old > out.bin; $TL convert examples/nchw.json examples/hw.bin -o out.bin --to NHWC; echo exit $?; cat out.bin; ls -A
