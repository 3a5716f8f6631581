$TL dump --json examples/dxdispatch.json examples/dxdispatch.bin
