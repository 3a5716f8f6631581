$TL dump examples/nchw.json examples/hw.bin
