head -c 8 examples/padded.bin > short.bin
$TL draw --values examples/padded.json short.bin
