$TL list bad/zip_count_too_small.npz; echo exit $?
