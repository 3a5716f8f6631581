$TL convert examples/overlap.json examples/overlap.bin -o out.bin --to-strides 1,1; echo exit $?; ls -A
