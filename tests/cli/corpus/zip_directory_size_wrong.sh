$TL list bad/zip_directory_size_wrong.npz; echo exit $?
