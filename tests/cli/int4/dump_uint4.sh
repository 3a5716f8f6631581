$TL dump examples/uint4.json examples/uint4.bin
