$TL convert examples/broadcast.json examples/broadcast.bin --to-strides 4,1 -o p.bin --out-desc p.json && $TL compare examples/broadcast.json examples/broadcast.bin p.json p.bin; echo exit $?
