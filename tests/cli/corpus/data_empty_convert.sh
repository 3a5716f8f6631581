: > empty.bin; $TL convert examples/hw.json empty.bin -o - --to WH
