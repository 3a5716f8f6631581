$TL convert --json examples/hw.json examples/hw.bin -o - --to WH
