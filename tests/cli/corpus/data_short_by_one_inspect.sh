head -c 23 examples/hw.bin > short.bin; $TL inspect --json examples/hw.json short.bin | grep -A4 "\"problems\""
