$TL dump examples/hw.json no-such.bin
