$TL convert examples/padded.json examples/padded.bin -o out.bin --to HW && cmp out.bin examples/hw.bin && echo unpadded
