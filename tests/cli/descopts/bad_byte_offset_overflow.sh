$TL dump --type f4 --sizes 2,3 --byte-offset 18446744073709551615 examples/hw.bin
