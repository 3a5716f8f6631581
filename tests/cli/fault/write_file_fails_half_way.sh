# A regular OUT is written in order through its temporary file; a write that
# fails half-way leaves OUT as it was and no temporary file.
echo old > out.bin; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=write_file_after:8 $TL convert examples/image.json examples/image.bin -o out.bin --to NHWC --out-desc out.json; echo exit $?; cat out.bin; ls -A
