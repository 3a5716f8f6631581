$TL inspect examples/nchw.json --axes NHWC; echo exit $?
