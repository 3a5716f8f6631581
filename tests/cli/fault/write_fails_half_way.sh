LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=write_after:10 $TL convert examples/hw.json examples/hw.bin -o - --to WH > part.bin; echo exit $?; wc -c < part.bin
