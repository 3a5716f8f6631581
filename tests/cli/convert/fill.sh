$TL convert examples/hw.json examples/hw.bin -o out.bin --to-strides 1,3 --fill -2.5 && od -An -f out.bin
