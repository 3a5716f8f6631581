# A padded GPU buffer (rows of 3 elements in a pitch of 5) read back whole
# ends with the last row's padding: that is no surprise, so no note.  Bytes
# past the padded box still get one.
echo '{"dataType": "FLOAT32", "sizes": [2, 3], "strides": [5, 1]}' > pad.json
printf '\0\0\0\0%.0s' 1 2 3 4 5 6 7 8 9 10 > rows.bin
printf '\0\0\0\0%.0s' 1 2 3 4 5 6 7 8 9 10 11 12 > more.bin
$TL dump pad.json rows.bin; echo exit $?
$TL dump pad.json more.bin; echo exit $?
$TL convert pad.json rows.bin --to WH -o out.bin; echo exit $?
