$TL convert --frobnicate examples/hw.json
