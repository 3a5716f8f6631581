# the padded example, described by options instead of padded.json: same values
$TL dump --type FLOAT32 --sizes 2,3 --strides 5,1 examples/padded.bin
$TL dump --type float32 --sizes 2,3 --strides 5,1 examples/padded.bin > a
$TL dump examples/padded.json examples/padded.bin > b
cmp a b && echo same as padded.json
