# A typo in strides that makes a tensor overlap: inspect keeps exit 0 (DirectML
# allows overlap) but says which two indices share an offset and, when a
# stride lacks a factor, the strides probably meant; --json has it in "notes";
# convert says it too and proceeds.  Broadcast (stride 0) is no overlap.
$TL inspect '{"dataType": "FLOAT32", "sizes": [1,64,32,32], "strides": [2048,1,64,64]}' | tail -1; echo exit $?
$TL inspect --json '{"dataType": "FLOAT32", "sizes": [2,4,5], "strides": [20,4,1]}' | grep -A1 notes
$TL inspect '{"dataType": "FLOAT32", "sizes": [2,3], "strides": [0,1]}' | tail -1
printf '\0\0\0\0%.0s' $(seq 1 12) > h.bin
$TL convert '{"dataType": "FLOAT32", "sizes": [4,3], "strides": [1,3]}' h.bin --to HW -o out.bin; echo exit $?
