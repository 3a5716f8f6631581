echo old > out.bin; $TL convert examples/hw.json examples/hw.bin -o out.bin --to-strides 0,1; echo exit $?; cat out.bin; ls -A
