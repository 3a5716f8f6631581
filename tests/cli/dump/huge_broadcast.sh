$TL dump '{"dataType": "FLOAT32", "sizes": [1073741824, 1073741824, 3], "strides": [0, 0, 1]}' examples/broadcast.bin
