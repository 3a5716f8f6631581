$TL dump bad/zip_mixed_dump_bool.npz:flags; echo exit $?
