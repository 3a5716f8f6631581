$TL offset --frobnicate examples/hw.json
