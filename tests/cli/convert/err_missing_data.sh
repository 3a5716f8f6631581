$TL convert examples/hw.json no-such.bin -o out.bin --to WH; echo exit $?; ls -A
