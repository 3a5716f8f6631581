$TL dump bad/zip_mixed_dump_other.npz:README.txt; echo exit $?
