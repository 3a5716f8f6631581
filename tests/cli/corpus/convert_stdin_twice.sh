$TL convert - - -o out.bin --to WH < examples/hw.json; echo exit $?; ls -A
