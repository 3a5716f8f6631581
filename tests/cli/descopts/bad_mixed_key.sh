# DESC and a description option other than --type and --sizes: the hint
# names that option and the key DESC takes for it
$TL convert examples/padded.json examples/padded.bin --file-offset 128 -o out.bin
