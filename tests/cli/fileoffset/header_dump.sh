# A dump with a 12-byte header: fileOffset skips it, no DirectML problem is
# reported for it (byteOffset 12 would be one), and every position printed
# is a position in the file.
printf 'HEADER-12345' > d.bin; printf '\000\000\000\000\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100\000\000\240\100' >> d.bin
D='{"dataType":"FLOAT32","sizes":[2,3],"fileOffset":12}'
$TL inspect "$D" d.bin | grep -E "^(byteOffset|fileOffset|data|problems)"; echo "exit $?"
$TL inspect '{"dataType":"FLOAT32","sizes":[2,3],"byteOffset":12}' d.bin | grep -A1 "^problems"
$TL inspect --json "$D" d.bin | grep -E "Offset|covers"
$TL offset "$D" 1,2 0,0
$TL offset "$D" --byte 12
$TL offset "$D" --byte 11
$TL offset "$D" --byte 36
$TL dump --physical "$D" d.bin
$TL dump "$D" d.bin
