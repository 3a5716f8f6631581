$TL list bad/zip_local_method_differs.npz; echo exit $?
