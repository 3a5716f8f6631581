$TL dump bad/zip_inflated_longer_than_declared.npz:a; echo exit $?
