# --total-size, --file-offset and --alignment join --type --sizes --strides
# --layout --byte-offset (issue 46): a readback's binding described without
# JSON, DirectML's problems as for a description.
head -c 1024 /dev/zero > z.bin
$TL inspect --type f32 --sizes 2,3 --total-size 64 --file-offset 256 --alignment 16 z.bin | grep -E '^(total|guaranteed|fileOffset|problems)'
$TL inspect --type f32 --sizes 2,3 --total-size 10 z.bin | tail -n 2; echo exit $?
$TL size --type f32 --sizes 2,3 --total-size 64; echo exit $?
$TL dump --type u8 --sizes 4 --file-offset 1000 z.bin; echo exit $?
$TL inspect --type f32 --sizes 2,3 --alignment 6 z.bin | tail -n 1
$TL inspect --type f32 --sizes 2,3 --alignment x z.bin; echo exit $?
