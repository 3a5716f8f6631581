$TL offset examples/hw.json 1,
