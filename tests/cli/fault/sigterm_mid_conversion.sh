# SIGTERM while the temporary output exists: no temporary file is left and
# OUT keeps its old content.  The tool's own messages go to err.txt; the
# shell's report of the signal ("Terminated", printed or not depending on
# timing) is kept out of the comparison.
echo old > out.bin
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=stall $TL convert examples/image.json examples/image.bin -o out.bin --to NHWC 2>err.txt &
sleep 1; kill -TERM $!; wait $! 2>/dev/null; echo exit $?; cat out.bin; ls -A; cat err.txt
