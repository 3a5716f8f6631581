$TL draw examples/hw.json --to WH --to-strides 1,2
