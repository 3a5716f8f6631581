head -c 10 examples/nchw.bin > s.bin; $TL compare examples/nchw.json s.bin examples/nchw.json examples/nchw.bin; echo exit $?
