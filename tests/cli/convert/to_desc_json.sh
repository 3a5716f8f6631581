$TL convert --json examples/dhw.json examples/dhw.bin -o out.bin --to-desc '{"DataType": "FLOAT32", "Sizes": [2, 2, 3], "Strides": [1, 6, 2], "TotalTensorSizeInBytes": 64}'; wc -c < out.bin
