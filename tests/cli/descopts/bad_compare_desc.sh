# compare with options takes two DATA files, no DESC
$TL compare --type f4 --sizes 2,3 examples/hw.json examples/hw.bin examples/hw.bin
