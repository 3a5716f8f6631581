# The mapped path: a destination whose outermost axis does not cut it into
# slabs (strides 3,2 interleave the rows), so OUT is mapped, not written in order.
echo old > out.bin; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=mmap_shared $TL convert examples/hw.json examples/hw.bin -o out.bin --to-strides 3,2; echo exit $?; cat out.bin; ls -A
