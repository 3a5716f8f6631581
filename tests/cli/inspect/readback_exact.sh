# A readback of exactly DMLCalcBufferTensorSize bytes (3 FLOAT16 values: 6
# bytes, rounded up to 8) is exact: no note, no trailing bytes, and the
# padding report and trailingBytes never count a byte twice.
printf '\000\074\000\100\000\102\000\000' > r8.bin
printf '\000\074\000\100\000\102\000\000\377\377' > r10.bin
D='{"dataType": "FLOAT16", "sizes": [3]}'
$TL dump "$D" r8.bin
$TL inspect --padding --json "$D" r8.bin | grep -E 'trailingBytes|"padding|\[6, 8\]|Bytes"'
$TL inspect --padding --json "$D" r10.bin | grep -E 'trailingBytes|"padding|\[6, 8\]|Bytes"'
$TL dump "$D" r10.bin
