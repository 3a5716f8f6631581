(ulimit -f 8; $TL convert examples/image.json examples/image.bin -o out.bin --to NHWC); echo exit $?; ls -A
