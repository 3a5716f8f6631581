# the file is too short for what the options describe
$TL dump --type f4 --sizes 2,3,4 examples/hw.bin
