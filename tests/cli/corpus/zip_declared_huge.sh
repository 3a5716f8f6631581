$TL dump bad/zip_declared_huge.npz:a; echo exit $?
