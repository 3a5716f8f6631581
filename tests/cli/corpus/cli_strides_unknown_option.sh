$TL strides --frobnicate examples/hw.json
