$TL inspect '{"dataType": "int8", "sizes": [4, 4], "layout": "WH"}'
