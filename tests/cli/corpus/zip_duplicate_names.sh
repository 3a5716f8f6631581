$TL list bad/zip_duplicate_names.npz; echo exit $?
