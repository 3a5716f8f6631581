$TL list bad/zip_empty_archive.npz; echo exit $?
