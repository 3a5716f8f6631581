$TL offset --json '{"dataType": "UINT8", "sizes": [1048576, 1048576, 1048576], "strides": [0, 0, 0]}' --byte 0 | tr -cd "[" | wc -c
