$TL inspect --frobnicate examples/hw.json
