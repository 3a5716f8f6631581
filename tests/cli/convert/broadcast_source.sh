$TL convert examples/broadcast.json examples/broadcast.bin -o out.bin --to HW && $TL dump examples/hw.json out.bin
