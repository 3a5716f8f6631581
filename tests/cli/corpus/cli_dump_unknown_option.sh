$TL dump --frobnicate examples/hw.json
