$TL dump --all examples/image.json examples/image.bin | wc -l
