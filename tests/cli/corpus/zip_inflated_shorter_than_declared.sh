$TL dump bad/zip_inflated_shorter_than_declared.npz:a; echo exit $?
