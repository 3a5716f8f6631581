$TL dump --type f4 --sizes 2,3 --byte-offset ten examples/hw.bin
