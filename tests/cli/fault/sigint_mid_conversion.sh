# SIGINT while the temporary output exists (the process stalls 5 s in the
# ftruncate that sizes it): exit 130, nothing left behind.  The signal is
# sent once a temporary file is there, not after a fixed delay, which a
# loaded machine (or valgrind's start) can outlast.
echo old > out.bin; LD_PRELOAD=$TL_INJECT_LIB TL_INJECT=stall $TL convert examples/image.json examples/image.bin -o new.bin --to NHWC --out-desc new.json &
i=0; while [ $i -lt 300 ] && ! ls -A | grep -q '\.tl-'; do sleep 0.1; i=$((i + 1)); done
kill -INT $!; wait $!; echo exit $?; ls -A
