$TL size examples/nchw.json
