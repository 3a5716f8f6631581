$TL dump --physical '{"dataType": "UINT8", "sizes": [2, 1000], "strides": [1001, 1]}' examples/image.bin
