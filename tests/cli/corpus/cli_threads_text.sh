$TL convert examples/hw.json examples/hw.bin -o out.bin --to WH --threads two
