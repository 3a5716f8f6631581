$TL dump --json examples/wh.json examples/wh.bin
