$TL dump bad/zip_mixed_dump_empty.npz:empty; echo exit $?
