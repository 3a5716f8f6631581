$TL draw examples/hw.json --to NHWC
