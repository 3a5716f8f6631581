$TL list bad/zip_directory_offset_wrong.npz; echo exit $?
