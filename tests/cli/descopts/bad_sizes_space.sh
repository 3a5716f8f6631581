# a space after a comma ends the list: the rest would be taken for DATA
$TL dump --sizes 2, 3 --type f4 examples/hw.bin
