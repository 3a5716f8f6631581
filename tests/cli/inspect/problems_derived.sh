# A stride nobody wrote is named for what it is: the packed stride of an
# axis, or the stride a layout gave it; an implied total likewise.
$TL inspect '{"dataType": "FLOAT32", "sizes": [2, 5000000000]}' | grep -A 4 "^problems"
$TL inspect '{"dataType": "UINT8", "sizes": [2, 3, 5000000000], "layout": "HWD"}' | grep -A 4 "^problems"
$TL inspect --json '{"dataType": "UINT8", "sizes": [1, 1, 1, 1, 1, 2, 5000000000]}' | grep -A 3 '"problems"'
$TL inspect '{"dataType": "UINT8", "sizes": [2, 3], "strides": [5000000000, 1]}' | grep -A 4 "^problems"
