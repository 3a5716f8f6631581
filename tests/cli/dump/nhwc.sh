$TL dump examples/nhwc.json examples/nhwc.bin
