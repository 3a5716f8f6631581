$TL compare examples/nchw.json examples/nchw.bin examples/nhwc.json examples/nhwc.bin; echo exit $?; $TL compare examples/hw.json examples/hw.bin examples/wh.json examples/wh.bin; echo exit $?
