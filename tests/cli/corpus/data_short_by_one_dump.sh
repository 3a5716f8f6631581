head -c 23 examples/hw.bin > short.bin; $TL dump examples/hw.json short.bin
