$TL offset examples/hw.json --byte
