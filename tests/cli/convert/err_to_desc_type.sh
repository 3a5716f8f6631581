$TL convert examples/hw.json examples/hw.bin -o out.bin --to-desc '{"dataType": "INT32", "sizes": [2, 3]}'
