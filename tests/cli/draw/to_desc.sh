$TL draw --color never examples/hw.json --to-desc examples/padded.json
