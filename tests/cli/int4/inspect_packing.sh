$TL inspect examples/uint4.json examples/uint4.bin
