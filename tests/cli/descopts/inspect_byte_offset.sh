# --byte-offset, in decimal or hexadecimal, as byteOffset
$TL inspect --type UINT8 --sizes 4 --byte-offset 0x10 examples/hw.bin | grep -E '^(byteOffset|data) '
