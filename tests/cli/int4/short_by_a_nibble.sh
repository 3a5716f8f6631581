printf "\041\103" > s.bin; $TL dump examples/uint4.json s.bin; echo exit $?; $TL convert examples/uint4.json s.bin --to W -o o.bin; echo exit $?
