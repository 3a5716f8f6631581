$TL inspect --json '{"dataType": "FLOAT64", "sizes": [2, 1, 2, 1, 2, 3], "layout": [5, 4, 3, 2, 1, 0]}'
