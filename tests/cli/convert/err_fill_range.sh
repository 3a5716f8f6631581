$TL convert '{"dataType": "UINT8", "sizes": [4]}' examples/hw.bin -o out.bin --to-strides 2 --fill 256
