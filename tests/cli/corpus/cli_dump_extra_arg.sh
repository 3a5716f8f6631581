$TL dump examples/hw.json examples/hw.bin examples/wh.bin
