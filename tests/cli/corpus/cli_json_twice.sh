$TL size --json --json examples/hw.json
