$TL inspect --json examples/broadcast.json examples/broadcast.bin
