$TL dump '{"dataType": "FLOAT32", "sizes": [4608]}' examples/image.bin
