$TL dump '{"dataType": "INT8", "sizes": [4, 6]}' examples/hw.bin; $TL dump '{"dataType": "UINT16", "sizes": [12]}' examples/hw.bin
