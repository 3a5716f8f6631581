$TL convert examples/broadcast.json examples/broadcast.bin --to HW --to-type FLOAT64 -o f.bin --out-desc f.json && $TL dump f.json f.bin
