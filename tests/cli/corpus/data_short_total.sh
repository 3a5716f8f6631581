head -c 39 examples/padded.bin > short.bin; $TL inspect examples/padded.json short.bin | tail -n 3; $TL dump examples/padded.json short.bin
