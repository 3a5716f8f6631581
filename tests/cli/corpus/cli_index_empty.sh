$TL offset examples/hw.json ""
