$TL list bad/zip_count_too_big.npz; echo exit $?
