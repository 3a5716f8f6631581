$TL frobnicate examples/hw.json
