echo old > out.bin; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=mmap_shared $TL convert examples/hw.json examples/hw.bin -o out.bin --to WH; echo exit $?; cat out.bin; ls -A
