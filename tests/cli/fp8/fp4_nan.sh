# FLOAT4E2M1 has no NaN: one tensor's conversion refuses it (exit 4, --saturate
# makes it 0); a whole file's --to-type makes it 0 without a word (man page).
printf '\000\000\300\177\000\000\200\077' > nan.bin
$TL convert --type FLOAT32 --sizes 2 nan.bin --to-type fp4 -o a.bin --format raw; echo exit $?
$TL convert --type FLOAT32 --sizes 2 nan.bin --to-type fp4 --saturate -o a.bin --format raw; echo exit $?; od -An -tx1 a.bin
$TL convert --type FLOAT32 --sizes 2 nan.bin -o m.safetensors --name w; echo exit $?
$TL convert m.safetensors --to-type fp4 -o m4.safetensors; echo exit $?; $TL dump m4.safetensors:w
