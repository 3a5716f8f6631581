$TL list bad/zip_method_lzma.npz; echo exit $?
