$TL offset '{"dataType": "UINT16", "sizes": [4], "byteOffset": 16}' --byte 3 --json
