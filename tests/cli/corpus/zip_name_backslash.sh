$TL list bad/zip_name_backslash.npz; echo exit $?
