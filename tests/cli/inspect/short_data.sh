$TL inspect examples/nchw.json examples/hw.bin
