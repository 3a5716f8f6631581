$TL compare examples/readback.json examples/readback.bin examples/reference.npy --show 4; echo exit $?
