cat examples/padded.bin | $TL inspect examples/padded.json -
