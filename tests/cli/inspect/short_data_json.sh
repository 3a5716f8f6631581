$TL inspect --json examples/nchw.json examples/hw.bin
