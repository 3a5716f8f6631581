cp examples/nchw.json d.json; $TL inspect d.json:x; echo exit $?
