$TL size examples/hw.json examples/hw.bin
