: > empty.bin; $TL dump examples/hw.json empty.bin
