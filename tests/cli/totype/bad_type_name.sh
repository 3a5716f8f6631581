$TL convert examples/hw.json examples/hw.bin --to HW --to-type FLOAT8 -o out.bin; echo exit $?
