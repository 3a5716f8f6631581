$TL list bad/zip_truncated_half.npz; echo exit $?
