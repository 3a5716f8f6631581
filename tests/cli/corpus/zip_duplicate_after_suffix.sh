$TL list bad/zip_duplicate_after_suffix.npz; echo exit $?
