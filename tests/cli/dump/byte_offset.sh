$TL dump '{"dataType": "FLOAT32", "sizes": [2, 2], "byteOffset": 8}' examples/hw.bin
