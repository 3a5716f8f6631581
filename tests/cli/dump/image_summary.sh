$TL dump examples/image.json examples/image.bin
