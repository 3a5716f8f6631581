$TL list bad/zip_method_bzip2.npz; echo exit $?
