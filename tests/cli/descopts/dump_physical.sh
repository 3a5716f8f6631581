# options, then DATA, with --physical: padding slots shown
$TL dump --physical --type f4 --sizes 2,3 --strides 5,1 examples/padded.bin
