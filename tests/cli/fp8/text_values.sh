# FP8 and FP4 values print as FLOAT16's do (SPEC 23): the fewest digits
# that read back, positional: E4M3's 10, 448 and 0.8125 as 10, 448,
# 0.8125, not 1e+01, 4.5e+02, 0.8; E8M0's powers of two as FLOAT32 writes
# them; in text and in --json.
printf '\122\176\065\001\376\200\010\177' > e4m3.bin
$TL dump --type FLOAT8E4M3 --sizes 8 e4m3.bin
$TL dump --json --type FLOAT8E4M3 --sizes 8 e4m3.bin
printf '\122\174\065\001' > e5m2.bin
$TL dump --type FLOAT8E5M2 --sizes 4 e5m2.bin
printf '\177\200\000\376' > e8m0.bin
$TL dump --type FLOAT8E8M0 --sizes 4 e8m0.bin
printf '\041\103\145\207' > fp4.bin
$TL dump --type FLOAT4E2M1 --sizes 8 fp4.bin
