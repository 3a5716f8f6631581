$TL list bad/zip_name_absolute.npz; echo exit $?
