# offset: the arguments after the options are indices
$TL offset --type f32 --sizes 2,3 --strides 5,1 1,2 0,0
$TL offset --type f32 --sizes 2,3 --strides 5,1 --byte 12
