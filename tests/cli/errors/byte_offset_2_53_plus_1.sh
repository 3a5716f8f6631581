$TL size '{"dataType": "UINT8", "sizes": [1], "byteOffset": 9007199254740993}'
