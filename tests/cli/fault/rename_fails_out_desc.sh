echo old > out.bin; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=rename $TL convert examples/hw.json examples/hw.bin -o out.bin --to WH --out-desc d.json; echo exit $?; cat out.bin; ls -A
