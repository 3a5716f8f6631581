$TL inspect --json examples/nchw.json
