$TL list bad/zip_local_name_differs.npz; echo exit $?
