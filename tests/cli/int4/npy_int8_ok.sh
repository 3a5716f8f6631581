$TL convert examples/int4_weight.json examples/int4_weight.bin --to-type int8 -o w.npy && $TL inspect w.npy | head -n 3 && $TL compare w.npy examples/int4_weight.json examples/int4_weight.bin
