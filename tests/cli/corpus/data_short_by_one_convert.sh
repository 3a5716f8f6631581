head -c 23 examples/hw.bin > short.bin; $TL convert examples/hw.json short.bin -o out.bin --to WH; echo exit $?; ls -A
