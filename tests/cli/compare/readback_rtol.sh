$TL compare --rtol 1e-3 examples/readback.json examples/readback.bin examples/reference.npy; echo exit $?
