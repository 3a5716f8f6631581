$TL dump examples/hw.json examples/hw.bin
