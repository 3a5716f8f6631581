# DESC and the options together: one or the other
$TL dump --type f4 --sizes 2,3 examples/padded.json examples/padded.bin
