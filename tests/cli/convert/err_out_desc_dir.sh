echo old > out.bin; $TL convert examples/hw.json examples/hw.bin -o out.bin --to WH --out-desc no-such-dir/d.json; echo exit $?; cat out.bin; ls -A
