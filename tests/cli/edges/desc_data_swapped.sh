$TL inspect examples/nchw.bin examples/nchw.json; echo exit $?
