# -o FILE (not .svg): the text picture, without colour unless --color always
$TL draw -o out.txt examples/padded.json && head -n 1 out.txt
