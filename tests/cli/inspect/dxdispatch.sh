$TL inspect examples/dxdispatch.json examples/dxdispatch.bin
