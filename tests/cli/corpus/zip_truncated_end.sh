$TL list bad/zip_truncated_end.npz; echo exit $?
