$TL size --frobnicate examples/hw.json
