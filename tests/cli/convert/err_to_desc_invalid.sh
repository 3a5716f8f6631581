$TL convert examples/hw.json examples/hw.bin -o out.bin --to-desc bad/sizes_zero.json
