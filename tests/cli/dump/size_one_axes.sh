# Axes of size 1 head no block of their own: a 1x16x1x1 bias is one line of
# 16; a broadcast bias's layout names its broadcast axes apart.
printf '\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017' > bias.bin
$TL dump '{"dataType": "UINT8", "sizes": [1, 16, 1, 1]}' bias.bin
$TL dump '{"dataType": "UINT8", "sizes": [2, 4, 1, 2]}' bias.bin
$TL dump '{"dataType": "UINT8", "sizes": [1, 1, 1]}' bias.bin 2>/dev/null
$TL inspect '{"dataType": "UINT8", "sizes": [1, 16, 7, 7], "strides": [0, 1, 0, 0]}' bias.bin | grep "^layout"
$TL inspect --json '{"dataType": "UINT8", "sizes": [1, 16, 7, 7], "strides": [0, 1, 0, 0]}' | grep -E '"layout"|broadcastAxes'
$TL dump '{"dataType": "UINT8", "sizes": [1, 4, 2, 2], "strides": [0, 1, 0, 0]}' bias.bin
