$TL inspect --frob examples/hw.json
