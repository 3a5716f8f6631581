$TL size '{"dataType": "FLOAT16", "sizes": [3]}'
