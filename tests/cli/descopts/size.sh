# size takes no DATA: the options are the whole input
$TL size --type half --sizes 1,3,224,224
$TL size --json --type BF16 --sizes 2,3 --strides 8,1
