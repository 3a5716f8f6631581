# SIGTERM while the temporary output exists: no temporary file is left and
# OUT keeps its old content.  The tool's own messages go to err.txt; the
# shell's report of the signal ("Terminated", printed or not depending on
# timing) is kept out of the comparison.
echo old > out.bin
LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=stall $TL convert examples/image.json examples/image.bin -o out.bin --to NHWC 2>err.txt &
# the signal goes once the temporary file is there (not after a fixed delay)
i=0; while [ $i -lt 300 ] && ! ls -A | grep -q '\.tl-'; do sleep 0.1; i=$((i + 1)); done
kill -TERM $!; wait $! 2>/dev/null; echo exit $?; cat out.bin; ls -A; cat err.txt
