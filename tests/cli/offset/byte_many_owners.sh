$TL offset '{"dataType": "UINT8", "sizes": [100, 100], "strides": [0, 0]}' --byte 0 | tail -n 3
