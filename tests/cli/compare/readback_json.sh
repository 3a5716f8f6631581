$TL compare --rtol 1e-3 --json examples/reference.npy examples/readback.json examples/readback.bin; echo exit $?
